package io.kvorum.bench;

import java.time.Duration;
import java.util.List;

/**
 * How the load phases run, from the command line.
 *
 * @param rates the rates the put, get and mixed sweeps step through
 * @param rangeRates the rates of the range sweep
 * @param holdRates the rates every load phase holds in turn instead of sweeping, or none to sweep
 * @param warmUp unmeasured run before a phase's measured runs
 * @param step length of a sweep step
 * @param duration length of a held run
 * @param settle least settle pause before a phase's measured runs
 * @param settleMax longest settle pause
 * @param p99LimitMillis the p99 a rate must stay at or under
 * @param saturationConnections connections of the flat-out saturation run
 * @param saturationDuration length of the saturation run
 */
record Plan(
    List<Integer> rates,
    List<Integer> rangeRates,
    List<Integer> holdRates,
    Duration warmUp,
    Duration step,
    Duration duration,
    Duration settle,
    Duration settleMax,
    double p99LimitMillis,
    int saturationConnections,
    Duration saturationDuration) {
  Plan {
    rates = List.copyOf(rates);
    rangeRates = List.copyOf(rangeRates);
    holdRates = List.copyOf(holdRates);
    if (rates.isEmpty() || rangeRates.isEmpty()) {
      throw new IllegalArgumentException("--rates and --range-rates need at least one rate");
    }
    for (int rate : holdRates) {
      if (rate <= 0) {
        throw new IllegalArgumentException("--hold-rates must be positive: " + rate);
      }
    }
    if (settleMax.compareTo(settle) < 0) {
      throw new IllegalArgumentException(
          "--settle-max (" + settleMax + ") is shorter than --settle (" + settle + ")");
    }
    if (step.isZero() || duration.isZero() || saturationDuration.isZero()) {
      throw new IllegalArgumentException(
          "--step, --duration and --saturation-duration must be > 0");
    }
    if (saturationConnections < 1) {
      throw new IllegalArgumentException("--saturation-connections must be positive");
    }
  }

  /** Whether the load phases hold given rates instead of sweeping. */
  boolean holds() {
    return !holdRates.isEmpty();
  }

  /** The sweep rates of a phase. */
  List<Integer> ratesOf(String phase) {
    return phase.equals("range") ? rangeRates : rates;
  }
}
