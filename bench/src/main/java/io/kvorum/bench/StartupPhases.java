package io.kvorum.bench;

import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.measure.Usage;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.IdleCpu;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.WarmUpCurve;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The phases that measure a cluster's start rather than its load: the {@code idle} CPU of the nodes
 * (just after start, and once warm), and the {@code warmup} from a cold start (a rate held on a
 * fresh cluster, sampled window by window). Prints each as it ends.
 */
final class StartupPhases {
  private static final PrintStream OUT = System.out;
  private static final Duration POLL = Duration.ofMillis(100);
  private final StartupPlan plan;
  private final UsageMeter meter;
  private final Measurer measurer;

  /**
   * @param meter samples the nodes (for the windows and the idle CPU)
   * @param measurer measures the whole warm-up as one run
   */
  StartupPhases(StartupPlan plan, UsageMeter meter, Measurer measurer) {
    this.plan = plan;
    this.meter = meter;
    this.measurer = measurer;
  }

  /** The nodes' CPU over the idle window, no requests sent. */
  IdleCpu idle(String when) throws InterruptedException {
    OUT.printf("%n== idle, %s: %d s ==%n", when, plan.idleWindow().toSeconds());
    UsageMeter.Sample before = meter.sample();
    Thread.sleep(plan.idleWindow());
    UsageMeter.Sample after = meter.sample();
    IdleCpu idle =
        new IdleCpu(
            when, UsageMeter.corePercentByNode(before, after), UsageMeter.between(before, after));
    OUT.println(idle.describe());
    return idle;
  }

  /**
   * Holds the warm-up rate of PUTs for the warm-up duration and samples the nodes at the end of
   * every full window; a window the load ended in is left out (it holds the drain, not the rate).
   */
  WarmUpCurve warmUp(LoadGenerator generator) throws InterruptedException {
    int rate = plan.warmUpRate();
    OUT.printf(
        "%n== warm-up from a cold start: PUT at %,d/s for %d s ==%n",
        rate, plan.warmUpDuration().toSeconds());
    List<UsageMeter.Sample> samples = new ArrayList<>();
    samples.add(meter.sample());
    long start = samples.get(0).nanoTime();
    CompletableFuture<Run> load =
        CompletableFuture.supplyAsync(
            () ->
                measurer.measure(
                    () -> generator.atRate("warm-up@" + rate, "put", rate, plan.warmUpDuration())));
    OUT.println("| window | node µs/req | of it JIT | ctx sw/req |");
    List<WarmUpCurve.Window> windows = new ArrayList<>();
    while (true) {
      long due = start + plan.warmUpWindow().toNanos() * samples.size();
      while (!load.isDone() && System.nanoTime() < due) {
        Thread.sleep(Math.max(1, Math.min(POLL.toMillis(), (due - System.nanoTime()) / 1_000_000)));
      }
      if (load.isDone()) {
        break;
      }
      UsageMeter.Sample before = samples.get(samples.size() - 1);
      UsageMeter.Sample after = meter.sample();
      samples.add(after);
      Usage usage = UsageMeter.between(before, after);
      WarmUpCurve.Window window =
          new WarmUpCurve.Window(
              Duration.ofNanos(before.nanoTime() - start),
              usage,
              rate * usage.elapsed().toNanos() / 1e9);
      windows.add(window);
      OUT.printf(
          Locale.ROOT,
          "| %d s | %.0f | %.0f | %.2f |%n",
          window.start().toSeconds(),
          window.nodeMicros(),
          window.jitMicros(),
          window.switches());
    }
    Run run = load.join();
    if (windows.isEmpty()) {
      throw new IllegalStateException("the warm-up ended before its first window");
    }
    int from = windows.size() * 2 / 3;
    Usage steady = UsageMeter.between(samples.get(from), samples.get(samples.size() - 1));
    WarmUpCurve curve =
        new WarmUpCurve(rate, windows, steady, rate * steady.elapsed().toNanos() / 1e9, run);
    OUT.printf(
        Locale.ROOT,
        "steady %.0f µs/req (the last third); within %.0f%% of it from %s%n",
        curve.steadyMicros(),
        100 * WarmUpCurve.TOLERANCE,
        curve.warmedUpAfter().map(d -> d.toSeconds() + " s").orElse("– (not settled)"));
    return curve;
  }
}
