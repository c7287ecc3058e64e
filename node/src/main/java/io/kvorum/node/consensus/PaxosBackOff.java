package io.kvorum.node.consensus;

import io.github.resilience4j.core.IntervalFunction;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The pause before a round that lost to another proposer's ballot tries again: exponential, each
 * pause jittered to between half and one and a half of it. From 2 ms, doubling, to at most 100 ms
 * unless the run-time switch {@code -Dkvorum.paxos.backOff=FIRST_MS,FACTOR,MAX_MS} says otherwise
 * (docs/performance.md, "Run-time switches"), so one jar is measured with several.
 */
final class PaxosBackOff {
  private static final double JITTER = 0.5;

  /** The back-off of this process: the switch's, or the default. */
  static final PaxosBackOff CURRENT =
      parse(System.getProperty("kvorum.paxos.backOff", "2,2.0,100"));

  static PaxosBackOff parse(String setting) {
    String[] parts = setting.split(",");
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "kvorum.paxos.backOff is FIRST_MS,FACTOR,MAX_MS, e.g. 2,2.0,100; not " + setting);
    }
    return new PaxosBackOff(
        IntervalFunction.ofExponentialBackoff(
            Long.parseLong(parts[0].trim()),
            Double.parseDouble(parts[1].trim()),
            Long.parseLong(parts[2].trim())));
  }

  private final IntervalFunction intervals;

  private PaxosBackOff(IntervalFunction intervals) {
    this.intervals = intervals;
  }

  /** The pause before attempt {@code attempt} (from 1), jittered by {@code random}. */
  long pauseNanos(int attempt, DoubleSupplier random) {
    long millis = intervals.apply(attempt);
    double jitter = 1 - JITTER + 2 * JITTER * random.getAsDouble();
    return (long) (TimeUnit.MILLISECONDS.toNanos(millis) * jitter);
  }
}
