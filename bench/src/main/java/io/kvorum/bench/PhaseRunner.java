package io.kvorum.bench;

import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.Settler;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.Sweep;
import io.kvorum.bench.report.Table;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Runs a load phase as the {@link Plan} says (a sweep, a hold, or the flat-out saturation run),
 * measuring every run with a {@link Measurer}; settles the store before a phase's measured runs.
 * Prints each run as it ends.
 */
final class PhaseRunner {
  private static final PrintStream OUT = System.out;
  private final LoadGenerator generator;
  private final Measurer measurer;
  private final Settler settler;
  private final Plan plan;

  /**
   * @param settler how to wait for the store to settle, or null not to
   */
  PhaseRunner(LoadGenerator generator, Measurer measurer, Settler settler, Plan plan) {
    this.generator = generator;
    this.measurer = measurer;
    this.settler = settler;
    this.plan = plan;
  }

  /** Runs {@code load} and measures what it cost. */
  Run measure(Supplier<PhaseResult> load) {
    return measurer.measure(load);
  }

  /** A measured run at {@code rate}, printed. */
  private Run atRate(String name, String phase, double rate, Duration duration, String label) {
    Run run = measurer.measure(() -> generator.atRate(name, phase, rate, duration));
    OUT.print(Table.row(run, label, plan.p99LimitMillis()));
    return run;
  }

  /**
   * The phase as the plan says: held at each hold rate in turn, or swept through its rates and the
   * best passing rate (or, failing that, the one below it) held for the duration.
   */
  Sweep run(String phase) throws InterruptedException {
    OUT.printf("%n== %s ==%n", phase);
    List<String> notes = new ArrayList<>();
    if (plan.holds()) {
      return hold(phase, notes);
    }
    int first = plan.ratesOf(phase).get(0);
    warmUp(phase, first, notes);
    settle("before the measured runs", notes);
    OUT.print(Table.header());
    List<Run> steps = new ArrayList<>();
    List<Integer> passed = new ArrayList<>();
    for (int rate : plan.ratesOf(phase)) {
      Run step = atRate(phase + "@" + rate, phase, rate, plan.step(), "step");
      steps.add(step);
      if (!Table.passes(step.load(), plan.p99LimitMillis())) {
        break;
      }
      passed.add(rate);
    }
    for (int i = passed.size() - 1; i >= 0 && i >= passed.size() - 2; i--) {
      int rate = passed.get(i);
      settle("before holding " + rate + "/s", notes);
      Run held = atRate(heldName(phase, rate), phase, rate, plan.duration(), "held");
      if (Table.passes(held.load(), plan.p99LimitMillis())) {
        return new Sweep(phase, steps, held, notes);
      }
      steps.add(held);
    }
    return new Sweep(phase, steps, null, notes);
  }

  /**
   * Each hold rate in turn: a warm-up at the rate, a settle pause, then a run of the plan's
   * duration at exactly that rate with its verdict. The phase is held at the highest rate that
   * passed.
   */
  private Sweep hold(String phase, List<String> notes) throws InterruptedException {
    List<Run> holds = new ArrayList<>();
    Run best = null;
    for (int rate : plan.holdRates()) {
      warmUp(phase, rate, notes);
      settle("before holding " + rate + "/s", notes);
      OUT.print(Table.header());
      Run held = atRate(heldName(phase, rate), phase, rate, plan.duration(), "held");
      holds.add(held);
      if (Table.passes(held.load(), plan.p99LimitMillis())
          && (best == null || best.load().requestedRate() < rate)) {
        best = held;
      }
    }
    return new Sweep(phase, List.of(), best, holds, notes);
  }

  /** The unmeasured run at a phase's first rate, if the plan has one. */
  private void warmUp(String phase, int rate, List<String> notes) {
    if (!plan.warmUp().isZero()) {
      generator.atRate(phase + " warm-up", phase, rate, plan.warmUp());
      notes.add(
          String.format(
              Locale.ROOT,
              "warm-up (not measured): %d s at %,d/s",
              plan.warmUp().toSeconds(),
              rate));
    }
  }

  /** Writes as fast as the cluster answers, for the CPU per write at saturation. */
  Run saturation(List<String> notes) throws InterruptedException {
    OUT.printf("%n== saturation ==%n");
    settle("before the saturation run", notes);
    Run run =
        measurer.measure(
            () ->
                generator.flatOut(
                    "saturation", "put", plan.saturationConnections(), plan.saturationDuration()));
    OUT.print(Table.header() + Table.row(run, "saturation", plan.p99LimitMillis()));
    return run;
  }

  /** Waits for the store to settle and notes how long that took. */
  void settle(String when, List<String> notes) throws InterruptedException {
    if (settler == null) {
      return;
    }
    Settler.Settled settled = settler.settle(plan.settle(), plan.settleMax());
    String note = settled.describe() + " " + when;
    OUT.println(note);
    notes.add(note);
  }

  private String heldName(String phase, int rate) {
    return phase + "@" + rate + " for " + plan.duration().toSeconds() + "s";
  }
}
