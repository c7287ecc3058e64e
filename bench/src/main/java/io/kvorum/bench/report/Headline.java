package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The headline of a run: issue 10's targets against what each jar measured, with nginx's ceiling
 * from the same run; and the held runs of every jar side by side.
 */
public final class Headline {
  /** The targets ask for each rate to be held this long. */
  static final Duration HOLD = Duration.ofSeconds(60);

  private Headline() {}

  /**
   * What a run was set up as; the targets apply to two setups only.
   *
   * @param heapOneGib whether every node ran with {@code -Xmx1g}, as the targets assume
   */
  public record Setup(int nodes, int ack, int from, int valueSize, boolean heapOneGib) {}

  /**
   * One target.
   *
   * @param text as the issue states it
   * @param phase the phase that measures it ({@code saturation} for the CPU target)
   * @param rate requests a second to hold (rate targets)
   * @param p99Millis the p99 to hold them at (rate targets)
   * @param cpuMicros the most CPU per write at saturation (the CPU target)
   */
  record Target(String text, String phase, double rate, double p99Millis, double cpuMicros) {}

  /** The targets for this setup; none for a setup it does not state. */
  static List<Target> targets(Setup setup) {
    if (setup.valueSize() != 1024) {
      return List.of();
    }
    if (setup.nodes() == 3 && setup.ack() == 2 && setup.from() == 3) {
      return List.of(
          new Target(
              "3 nodes: PUT ≥ 20,000/s held 60 s, p99 ≤ 10 ms, no errors", "put", 20_000, 10, 0),
          new Target(
              "3 nodes: GET ≥ 20,000/s held 60 s, p99 ≤ 10 ms, no errors", "get", 20_000, 10, 0),
          new Target("3 nodes: mixed 90/10 ≥ 20,000/s, likewise", "mixed", 20_000, 10, 0),
          new Target(
              "3 nodes: CPU per replicated write at saturation ≤ 70 µs (all processes)",
              "saturation",
              0,
              0,
              70));
    }
    if (setup.nodes() == 1) {
      return List.of(
          new Target("1 node: PUT ≥ 40,000/s, p99 ≤ 5 ms (held 60 s)", "put", 40_000, 5, 0),
          new Target("1 node: GET ≥ 40,000/s, p99 ≤ 5 ms (held 60 s)", "get", 40_000, 5, 0));
    }
    return List.of();
  }

  /** The table of targets: one column per jar, then nginx's ceiling at the target's p99. */
  public static String targetTable(Setup setup, List<JarResults> jars, List<Run> nginx) {
    List<Target> targets = targets(setup);
    if (targets.isEmpty()) {
      return "Issue 10 states targets for 3 nodes with ack=2 from=3 and for 1 node, both with"
          + " 1 KiB values; this run's setup has none.\n";
    }
    List<String> columns = new ArrayList<>(jars.stream().map(JarResults::label).toList());
    columns.add("nginx `return 204`, same run");
    StringBuilder md = new StringBuilder(Table.header("target", columns, "---"));
    for (Target target : targets) {
      double ceiling = ceiling(nginx, target.p99Millis());
      md.append("| ").append(target.text()).append(" |");
      for (JarResults jar : jars) {
        md.append(' ').append(cell(target, jar, ceiling)).append(" |");
      }
      md.append(' ').append(nginxCell(target, nginx, ceiling)).append(" |\n");
    }
    if (!setup.heapOneGib()) {
      md.append("\nThe nodes did not run with `-Xmx1g`, which the targets assume.\n");
    }
    return md.toString();
  }

  /**
   * Each phase's held run (or, when none held, the last run tried; with several hold rates, every
   * hold) and the saturation run of every jar, side by side.
   */
  public static String comparison(List<JarResults> jars, double p99LimitMillis) {
    StringBuilder md =
        new StringBuilder(
            "| phase | jar | rate held | achieved | p50 | p99 | p99.9 | errors | node µs/req"
                + " | all µs/req | ctx sw/req | GC pauses |\n"
                + "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
                + " --- |\n");
    for (String phase : phasesOf(jars)) {
      for (JarResults jar : jars) {
        Sweep sweep = jar.sweep(phase);
        if (phase.equals("saturation") && jar.saturation() != null) {
          md.append(
              compared(phase, jar.label(), Table.rate(jar.saturation().load()), jar.saturation()));
        } else if (sweep != null && !sweep.holds().isEmpty()) {
          for (Run held : sweep.holds()) {
            String rate =
                Table.rate(held.load())
                    + (Table.passes(held.load(), p99LimitMillis) ? "" : " (failed)");
            md.append(compared(phase, jar.label(), rate, held));
          }
        } else if (sweep != null && sweep.sustained() != null) {
          Run held = sweep.sustained();
          md.append(compared(phase, jar.label(), Table.rate(held.load()), held));
        } else if (sweep != null && sweep.lastTried() != null) {
          Run tried = sweep.lastTried();
          String rate = "none (" + Table.rate(tried.load()) + " failed)";
          md.append(compared(phase, jar.label(), rate, tried));
        }
      }
    }
    return md.toString();
  }

  private static String compared(String phase, String jar, String rate, Run run) {
    PhaseResult r = run.load();
    return String.format(
        Locale.ROOT,
        "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |%n",
        phase,
        jar,
        rate,
        r.achievedRate(),
        Table.ms(r.latency().getValueAtPercentile(50)),
        Table.ms(r.latency().getValueAtPercentile(99)),
        Table.ms(r.latency().getValueAtPercentile(99.9)),
        Table.errors(r),
        Table.number(run.nodeMicros()),
        Table.number(run.allMicros()),
        Table.number(run.switches()),
        Table.gc(run.gc()));
  }

  private static String cell(Target target, JarResults jar, double ceiling) {
    if (target.phase().equals("saturation")) {
      Run run = jar.saturation();
      if (run == null) {
        return "not run";
      }
      return String.format(
          Locale.ROOT,
          "%s µs (nodes %s) at %,.0f writes/s: %s",
          Table.number(run.allMicros()),
          Table.number(run.nodeMicros()),
          run.load().achievedRate(),
          run.allMicros() <= target.cpuMicros() ? "**pass**" : "miss");
    }
    Sweep sweep = jar.sweep(target.phase());
    if (sweep == null) {
      return "not run";
    }
    Run held = sweep.sustained();
    if (held == null) {
      Run tried = sweep.lastTried();
      return tried == null
          ? "none held: miss"
          : String.format(
              Locale.ROOT,
              "none held (%,.0f/s: p99 %s ms, errors %s): miss",
              tried.load().requestedRate(),
              Table.ms(tried.load().p99Micros()),
              Table.errors(tried.load()));
    }
    PhaseResult r = held.load();
    long seconds = Math.round(r.sendWindow().toMillis() / 1000.0);
    boolean fast = r.requestedRate() >= target.rate() && Table.passes(r, target.p99Millis());
    String verdict =
        !fast
            ? String.format(
                Locale.ROOT, "miss (%.0f%% of it)", 100 * r.requestedRate() / target.rate())
            : seconds < HOLD.toSeconds() ? "held too short a time to tell" : "**pass**";
    String ratio =
        ceiling > 0
            ? String.format(Locale.ROOT, ", %.0f%% of nginx", 100 * r.requestedRate() / ceiling)
            : "";
    return String.format(
        Locale.ROOT,
        "%,.0f/s held %d s, p99 %s ms%s: %s",
        r.requestedRate(),
        seconds,
        Table.ms(r.p99Micros()),
        ratio,
        verdict);
  }

  private static String nginxCell(Target target, List<Run> nginx, double ceiling) {
    if (target.phase().equals("saturation")) {
      return "–";
    }
    if (nginx.isEmpty()) {
      return "not measured (`--calibrate`)";
    }
    if (ceiling == 0) {
      return "no rate held";
    }
    Run top = nginx.stream().filter(r -> r.load().requestedRate() == ceiling).findFirst().get();
    boolean topOfLadder = nginx.stream().allMatch(r -> r.load().requestedRate() <= ceiling);
    return String.format(
        Locale.ROOT,
        "%s%,.0f/s (p99 %s ms)",
        topOfLadder ? "≥ " : "",
        ceiling,
        Table.ms(top.load().p99Micros()));
  }

  /** The highest rate nginx held at this p99 with no errors; 0 when none did. */
  static double ceiling(List<Run> nginx, double p99Millis) {
    double best = 0;
    for (Run run : nginx) {
      if (Table.passes(run.load(), p99Millis)) {
        best = Math.max(best, run.load().requestedRate());
      }
    }
    return best;
  }

  /** The phases a comparison lists, in the order run, saturation last. */
  private static List<String> phasesOf(List<JarResults> jars) {
    List<String> phases = new ArrayList<>();
    for (JarResults jar : jars) {
      for (Sweep sweep : jar.sweeps()) {
        if (!phases.contains(sweep.phase())) {
          phases.add(sweep.phase());
        }
      }
      if (jar.saturation() != null && !phases.contains("saturation")) {
        phases.add("saturation");
      }
    }
    return phases;
  }
}
