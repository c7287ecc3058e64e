package io.kvorum.bench;

import java.time.Duration;

/**
 * How the idle and warm-up phases run, from the command line.
 *
 * @param idleWindow how long the idle CPU is measured, just after start and once warm
 * @param warmUpRate the rate (PUT, req/s) the warm-up holds from a cold start
 * @param warmUpDuration how long the warm-up holds it
 * @param warmUpWindow the length of each point of the warm-up curve
 */
record StartupPlan(
    Duration idleWindow, int warmUpRate, Duration warmUpDuration, Duration warmUpWindow) {
  StartupPlan {
    if (idleWindow.isNegative() || idleWindow.isZero()) {
      throw new IllegalArgumentException("--idle-window must be > 0");
    }
    if (warmUpRate <= 0) {
      throw new IllegalArgumentException("--warmup-rate must be positive: " + warmUpRate);
    }
    if (warmUpWindow.isNegative() || warmUpWindow.isZero()) {
      throw new IllegalArgumentException("--warmup-window must be > 0");
    }
    if (warmUpDuration.compareTo(warmUpWindow.multipliedBy(3)) < 0) {
      throw new IllegalArgumentException(
          "--warmup-duration ("
              + warmUpDuration.toSeconds()
              + " s) must hold at least three --warmup-window ("
              + warmUpWindow.toSeconds()
              + " s): the steady value is the mean of the last third");
    }
  }
}
