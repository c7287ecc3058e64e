package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The headline's account of the cost at the rates clusters really run: one row per measure (idle
 * just after start, the warm-up time and curve, every held rate of every load phase, saturation,
 * idle once warm, nginx's ceiling), one column per jar.
 */
public final class CostHeadline {
  private CostHeadline() {}

  /** Whether any jar measured something this table shows beyond the comparison's rows. */
  public static boolean applies(List<JarResults> jars) {
    return jars.stream()
        .anyMatch(
            j ->
                !j.idle().isEmpty()
                    || j.warmUp() != null
                    || j.sweeps().stream().anyMatch(s -> s.holds().size() > 1));
  }

  /** The table; {@code nginx} and the p99 limit give the ceiling row. */
  public static String table(List<JarResults> jars, List<Run> nginx, double p99LimitMillis) {
    Map<String, Function<JarResults, String>> rows = new LinkedHashMap<>();
    rows.put("idle just after start", j -> idle(j.idle(IdleCpu.JUST_STARTED)));
    rows.put("warm-up time (within 20% of steady)", j -> warmUpTime(j.warmUp()));
    rows.put("warm-up: node µs/req, first window → steady", j -> warmUpCurve(j.warmUp()));
    for (String row : heldRows(jars)) {
      rows.put(row, j -> held(j, row, p99LimitMillis));
    }
    rows.put("saturation: µs per write, all (nodes); writes/s", CostHeadline::saturation);
    rows.put("idle once warm", j -> idle(j.idle(IdleCpu.ONCE_WARM)));
    StringBuilder md =
        new StringBuilder(
            Table.header("measure", jars.stream().map(JarResults::label).toList(), "---"));
    for (Map.Entry<String, Function<JarResults, String>> row : rows.entrySet()) {
      List<String> cells = jars.stream().map(row.getValue()).toList();
      if (cells.stream().allMatch(c -> c.equals("–"))) {
        continue;
      }
      md.append("| ").append(row.getKey()).append(" | ");
      md.append(String.join(" | ", cells)).append(" |\n");
    }
    if (!nginx.isEmpty()) {
      double ceiling = Headline.ceiling(nginx, p99LimitMillis);
      md.append(
          String.format(
              Locale.ROOT,
              "%nnginx `return 204`, same run: %s at p99 ≤ %s ms.%n",
              ceiling > 0 ? String.format(Locale.ROOT, "%,.0f/s held", ceiling) : "no rate held",
              Table.millis(p99LimitMillis)));
    }
    return md.append(
            "\nHeld runs: node CPU µs per request (all processes'), context switches per request;"
                + " p50 / p99 / p99.9 in ms; the rate achieved; errors; the verdict.\n")
        .toString();
  }

  /** {@code PUT 1,000/s} for every hold rate of every phase, in the order run. */
  static List<String> heldRows(List<JarResults> jars) {
    List<String> rows = new ArrayList<>();
    for (JarResults jar : jars) {
      for (Sweep sweep : jar.sweeps()) {
        for (Run run : sweep.longRuns()) {
          String row = rowName(sweep.phase(), run.load());
          if (!rows.contains(row)) {
            rows.add(row);
          }
        }
      }
    }
    return rows;
  }

  private static String rowName(String phase, PhaseResult load) {
    return String.format(
        Locale.ROOT, "%s %,.0f/s", phase.toUpperCase(Locale.ROOT), load.requestedRate());
  }

  private static String held(JarResults jar, String row, double p99LimitMillis) {
    for (Sweep sweep : jar.sweeps()) {
      for (Run run : sweep.longRuns()) {
        if (rowName(sweep.phase(), run.load()).equals(row)) {
          PhaseResult r = run.load();
          return String.format(
              Locale.ROOT,
              "%s µs (%s), %s sw; %s / %s / %s ms; %,.0f/s; %s; %s",
              Table.number(run.nodeMicros()),
              Table.number(run.allMicros()),
              Table.number(run.switches()),
              Table.ms(r.latency().getValueAtPercentile(50)),
              Table.ms(r.latency().getValueAtPercentile(99)),
              Table.ms(r.latency().getValueAtPercentile(99.9)),
              r.achievedRate(),
              Table.errors(r) + (Table.errors(r).equals("0") ? " errors" : ""),
              Table.passes(r, p99LimitMillis) ? "pass" : "fail");
        }
      }
    }
    return "–";
  }

  private static String idle(IdleCpu idle) {
    return idle == null ? "–" : idle.describe();
  }

  private static String warmUpTime(WarmUpCurve curve) {
    return curve == null
        ? "–"
        : String.format(
            Locale.ROOT,
            "%s at %,.0f/s PUT",
            curve.warmedUpAfter().map(d -> d.toSeconds() + " s").orElse("not reached"),
            curve.rate());
  }

  private static String warmUpCurve(WarmUpCurve curve) {
    if (curve == null) {
      return "–";
    }
    WarmUpCurve.Window first = curve.windows().get(0);
    return String.format(
        Locale.ROOT,
        "%s (JIT %s) → %s (JIT %s)",
        Table.number(first.nodeMicros()),
        Table.number(first.jitMicros()),
        Table.number(curve.steadyMicros()),
        Table.number(curve.steady().jit().cpuNanos() / 1e3 / Math.max(1, curve.steadyRequests())));
  }

  private static String saturation(JarResults jar) {
    Run run = jar.saturation();
    return run == null
        ? "–"
        : String.format(
            Locale.ROOT,
            "%s (%s); %,.0f/s",
            Table.number(run.allMicros()),
            Table.number(run.nodeMicros()),
            run.load().achievedRate());
  }
}
