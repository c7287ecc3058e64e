package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.GcPauses;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/** The rows of the report's (and the console's) tables of runs, and the verdict of a run. */
public final class Table {
  private Table() {}

  public static String header() {
    return "| run | rate | achieved | p50 | p90 | p99 | p99.9 | max | errors | node µs/req"
        + " | all µs/req | ctx sw/req | GC pauses | verdict |\n"
        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
        + " --- | --- |\n";
  }

  /**
   * A markdown table's first two lines: {@code first}, then a column per label, each of the latter
   * with {@code rule} ({@code ---}, or {@code ---:} to align numbers right).
   */
  static String header(String first, List<String> labels, String rule) {
    StringBuilder md = new StringBuilder("| ").append(first).append(" |");
    labels.forEach(label -> md.append(' ').append(label).append(" |"));
    md.append("\n| --- |");
    labels.forEach(label -> md.append(' ').append(rule).append(" |"));
    return md.append('\n').toString();
  }

  /** One row; latencies in milliseconds. */
  public static String row(Run run, String label, double p99LimitMillis) {
    PhaseResult r = run.load();
    Histogram h = r.latency();
    return String.format(
        Locale.ROOT,
        "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
        label,
        rate(r),
        r.achievedRate(),
        ms(h.getValueAtPercentile(50)),
        ms(h.getValueAtPercentile(90)),
        ms(h.getValueAtPercentile(99)),
        ms(h.getValueAtPercentile(99.9)),
        ms(h.getMaxValue()),
        errors(r),
        number(run.nodeMicros()),
        number(run.allMicros()),
        number(run.switches()),
        gc(run.gc()),
        r.requestedRate() == 0 ? "closed loop" : passes(r, p99LimitMillis) ? "pass" : "fail");
  }

  /**
   * A rate holds when every request was answered with the expected status, the p99 is at most the
   * limit, and the generator delivered at least 98% of the rate.
   */
  public static boolean passes(PhaseResult r, double p99LimitMillis) {
    return r.errorCount() == 0
        && r.latency().getTotalCount() > 0
        && r.p99Micros() <= p99LimitMillis * 1000
        && r.achievedRate() >= 0.98 * r.requestedRate();
  }

  static String rate(PhaseResult r) {
    return r.requestedRate() > 0 ? String.format(Locale.ROOT, "%.0f", r.requestedRate()) : "max";
  }

  static String errors(PhaseResult r) {
    return r.errors().isEmpty()
        ? "0"
        : r.errors().entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getValue() + " " + e.getKey())
            .collect(Collectors.joining(", "));
  }

  /** {@code 0}, or {@code count: max M, total T ms} summed over the nodes. */
  static String gc(GcPauses gc) {
    return gc.count() == 0
        ? "0"
        : String.format(
            Locale.ROOT,
            "%d: max %s, total %s ms",
            gc.count(),
            millis(gc.maxMillis()),
            millis(gc.totalMillis()));
  }

  /** A per-request figure with three significant digits at most; a dash for none. */
  public static String number(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "–";
    }
    return value >= 100
        ? String.format(Locale.ROOT, "%.0f", value)
        : value >= 10
            ? String.format(Locale.ROOT, "%.1f", value)
            : String.format(Locale.ROOT, "%.2f", value);
  }

  public static String ms(long micros) {
    return millis(micros / 1000.0);
  }

  static String millis(double millis) {
    return millis >= 100
        ? String.format(Locale.ROOT, "%.0f", millis)
        : String.format(Locale.ROOT, "%.2f", millis);
  }
}
