package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.GcPauses;
import io.kvorum.bench.measure.Usage;
import java.util.Objects;

/**
 * One measured interval: what the generator saw, what it cost the processes, and the nodes' GC
 * pauses meanwhile.
 */
public record Run(PhaseResult load, Usage usage, GcPauses gc) {
  public Run {
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(usage, "usage");
    Objects.requireNonNull(gc, "gc");
  }

  /** Node CPU per answered request, in microseconds. */
  public double nodeMicros() {
    return usage.nodeMicrosPer(load.answered());
  }

  /** CPU of every process (nodes and generator) per answered request, in microseconds. */
  public double allMicros() {
    return usage.allMicrosPer(load.answered());
  }

  /** Node context switches per answered request. */
  public double switches() {
    return usage.switchesPer(load.answered());
  }
}
