package io.kvorum.node.testing;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A wall clock for a test node: the system's, shifted by an amount the test sets and may change
 * while the node runs (a clock stepped by hand or by a bad time server). The node's monotonic clock
 * stays the system's, as a real step leaves it.
 */
public final class TestWallClock implements LongSupplier {
  private volatile long shiftMillis;

  /** The system's wall clock, shifted by {@code shift}. */
  public static TestWallClock shiftedBy(Duration shift) {
    TestWallClock clock = new TestWallClock();
    clock.shift(shift);
    return clock;
  }

  /** From now on, the system's wall clock shifted by {@code shift} (negative: behind). */
  public void shift(Duration shift) {
    this.shiftMillis = shift.toMillis();
  }

  @Override
  public long getAsLong() {
    return System.currentTimeMillis() + shiftMillis;
  }
}
