package io.kvorum.bench;

import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.GcLog;
import io.kvorum.bench.measure.GcPauses;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.Run;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * Measures a run: latency from the generator, CPU and context switches sampled by a {@link
 * UsageMeter} just before and just after it, and the GC pauses the servers logged meanwhile.
 */
final class Measurer {
  private final UsageMeter meter;
  private final List<Path> gcLogs;

  /**
   * @param gcLogs the servers' GC logs (none for a server that is not a JVM)
   */
  Measurer(UsageMeter meter, List<Path> gcLogs) {
    this.meter = meter;
    this.gcLogs = List.copyOf(gcLogs);
  }

  /** Runs {@code load} and measures what it cost. */
  Run measure(Supplier<PhaseResult> load) {
    Instant from = Instant.now();
    UsageMeter.Sample before = meter.sample();
    PhaseResult result = load.get();
    UsageMeter.Sample after = meter.sample();
    Instant to = Instant.now();
    GcPauses gc = GcPauses.NONE;
    for (Path log : gcLogs) {
      try {
        gc = gc.plus(GcLog.between(GcLog.read(log), from, to));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the GC log " + log, e);
      }
    }
    return new Run(result, UsageMeter.between(before, after), gc);
  }
}
