package io.kvorum.bench.report;

import io.kvorum.bench.measure.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The warm-up from a cold start: a fresh cluster held at one rate, its CPU per request window by
 * window. The steady value is the mean of the last third of the windows; the warm-up time is the
 * start of the first window from which every later window stays within {@link #TOLERANCE} of it.
 *
 * @param rate the rate held (PUT, req/s)
 * @param windows the curve, in order
 * @param steady what the last third of the windows used together (for the account by pool)
 * @param steadyRequests the requests of that last third
 * @param run the whole hold as one run (its latency, errors, rate achieved)
 */
public record WarmUpCurve(
    double rate, List<Window> windows, Usage steady, double steadyRequests, Run run) {
  /** How far from the steady value a warm window may be. */
  public static final double TOLERANCE = 0.2;

  public WarmUpCurve {
    windows = List.copyOf(windows);
    if (windows.isEmpty()) {
      throw new IllegalArgumentException("a warm-up curve needs at least one window");
    }
  }

  /**
   * One point of the curve.
   *
   * @param start when the window began, from the start of the load
   * @param usage what the nodes used in it
   * @param requests the requests due in it (the rate times its length)
   */
  public record Window(Duration start, Usage usage, double requests) {
    /** Node CPU per request, µs. */
    public double nodeMicros() {
      return usage.nodeCpuNanos() / 1e3 / requests;
    }

    /** The JIT compiler threads' CPU per request, µs. */
    public double jitMicros() {
      return usage.jit().cpuNanos() / 1e3 / requests;
    }

    /** Node context switches per request. */
    public double switches() {
      return usage.nodeContextSwitches() / requests;
    }
  }

  /** The index of the first window of the last third. */
  public int steadyFrom() {
    return windows.size() * 2 / 3;
  }

  /** The steady CPU per request: the mean of the last third of the windows, µs. */
  public double steadyMicros() {
    return windows.subList(steadyFrom(), windows.size()).stream()
        .mapToDouble(Window::nodeMicros)
        .average()
        .orElseThrow();
  }

  /**
   * When the warm-up ended: the start of the first window from which every later one is within
   * {@link #TOLERANCE} of the steady value; empty when even the last one is not.
   */
  public Optional<Duration> warmedUpAfter() {
    int from = settledFrom(windows.stream().map(Window::nodeMicros).toList(), steadyMicros());
    return from < 0 ? Optional.empty() : Optional.of(windows.get(from).start());
  }

  /**
   * The index from which every value is within {@link #TOLERANCE} of {@code steady}, or -1 when the
   * last one is not.
   */
  static int settledFrom(List<Double> values, double steady) {
    int from = values.size();
    while (from > 0 && Math.abs(values.get(from - 1) - steady) <= TOLERANCE * steady) {
      from--;
    }
    return from == values.size() ? -1 : from;
  }
}
