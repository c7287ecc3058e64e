package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.GcPauses;
import io.kvorum.bench.measure.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Runs made up for tests. */
final class Runs {
  private Runs() {}

  /**
   * A run at {@code rate} for {@code seconds} that delivered the whole rate, with p50 of 1 ms and
   * the given p99, {@code errors} timeouts, and 50 µs of node CPU per request.
   */
  static Run run(String name, double rate, long seconds, long p99Micros, long errors) {
    Histogram latency = new Histogram(3);
    latency.recordValueWithCount(1000, 98);
    latency.recordValueWithCount(p99Micros, 2);
    long answered = (long) (rate * seconds);
    PhaseResult load =
        new PhaseResult(
            name,
            rate,
            Duration.ofSeconds(seconds),
            answered,
            answered - errors,
            answered,
            errors > 0 ? Map.of("timeout", errors) : Map.of(),
            latency,
            Map.of(),
            List.of(),
            0,
            0);
    Usage usage =
        new Usage(Duration.ofSeconds(seconds), answered * 50_000, answered * 10_000, answered * 3);
    return new Run(load, usage, new GcPauses(2, 4.5, 6));
  }
}
