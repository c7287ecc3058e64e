package io.kvorum.bench.report;

import java.util.Locale;

/** The report's text and table of a {@link WarmUpCurve}. */
final class WarmUpSection {
  private WarmUpSection() {}

  /** The warm-up time and the steady value in a sentence. */
  static String summary(WarmUpCurve curve) {
    WarmUpCurve.Window first = curve.windows().get(0);
    return String.format(
        Locale.ROOT,
        "PUT at %,.0f/s from a cold start (before the preload), in windows of %d s: steady"
            + " **%s µs** of node CPU per request (the mean of the last third of the windows);"
            + " **warm-up time %s** (the start of the first window from which every later one"
            + " stays within %.0f%% of the steady value). The first window cost %s µs per request,"
            + " %s µs of it the JIT compiler threads'. Requests per window: the rate times its"
            + " length.",
        curve.rate(),
        first.usage().elapsed().toSeconds(),
        Table.number(curve.steadyMicros()),
        warmUpTime(curve),
        100 * WarmUpCurve.TOLERANCE,
        Table.number(first.nodeMicros()),
        Table.number(first.jitMicros()));
  }

  /** {@code 40 s}, or that it did not settle. */
  static String warmUpTime(WarmUpCurve curve) {
    return curve
        .warmedUpAfter()
        .map(d -> d.toSeconds() + " s")
        .orElse("not reached (the last window is off the steady value by more than 20%)");
  }

  /** One row per window: node CPU, the JIT's part, context switches, per request. */
  static String curveTable(WarmUpCurve curve) {
    StringBuilder md =
        new StringBuilder(
            "| window | node µs/req | of it JIT (C1 + C2) | ctx sw/req |\n"
                + "| ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < curve.windows().size(); i++) {
      WarmUpCurve.Window w = curve.windows().get(i);
      long from = w.start().toSeconds();
      long to = from + Math.round(w.usage().elapsed().toMillis() / 1000.0);
      md.append(
          String.format(
              Locale.ROOT,
              "| %d–%d s%s | %s | %s | %s |%n",
              from,
              to,
              i == curve.steadyFrom() ? " (steady from here)" : "",
              Table.number(w.nodeMicros()),
              Table.number(w.jitMicros()),
              Table.number(w.switches())));
    }
    return md.toString();
  }
}
