package io.kvorum.node.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * When a node's write-ahead log reaches the disk ({@code --sync-writes}), and so how much
 * acknowledged work a power cut of the machine can take: none when the log is synced before each
 * write is acknowledged; at most {@link #interval} (plus the time one sync takes) when it is synced
 * periodically, the default; anything since the last memtable flush when syncing is left to the
 * operating system. A crash of the process alone (SIGKILL) loses nothing in any mode.
 *
 * @param mode which of the three
 * @param interval for {@link Mode#PERIODIC}, the longest time between two syncs; zero otherwise
 */
public record WalSync(Mode mode, Duration interval) {
  /**
   * The three ways, as {@code --sync-writes} names them: {@code true}, an interval, {@code false}.
   */
  public enum Mode {
    EVERY_WRITE,
    PERIODIC,
    OS
  }

  /** Synced before each write is acknowledged (writes arriving together share one sync). */
  public static final WalSync EVERY_WRITE = new WalSync(Mode.EVERY_WRITE, Duration.ZERO);

  /** Never synced by the node, but at memtable flushes and a clean close. */
  public static final WalSync OS = new WalSync(Mode.OS, Duration.ZERO);

  /** The default: synced at least every 100 ms, as Cassandra's periodic commit log is (10 s). */
  public static final WalSync DEFAULT = every(Duration.ofMillis(100));

  public WalSync {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(interval, "interval");
    if (mode == Mode.PERIODIC ? interval.isNegative() || interval.isZero() : !interval.isZero()) {
      throw new IllegalArgumentException("a sync interval belongs to periodic syncs alone");
    }
  }

  /** Synced at least every {@code interval}. */
  public static WalSync every(Duration interval) {
    return new WalSync(Mode.PERIODIC, interval);
  }

  /** {@code true} for {@link #EVERY_WRITE}, {@code false} for {@link #OS}. */
  public static WalSync everyWrite(boolean sync) {
    return sync ? EVERY_WRITE : OS;
  }

  /** Whether each write is synced before it is acknowledged. */
  public boolean everyWrite() {
    return mode == Mode.EVERY_WRITE;
  }

  /** Whether a background sync runs every {@link #interval}. */
  public boolean periodic() {
    return mode == Mode.PERIODIC;
  }

  /**
   * The value of {@code --sync-writes} that gives this: {@code true}, {@code 100ms}, {@code false}.
   */
  @Override
  public String toString() {
    return switch (mode) {
      case EVERY_WRITE -> "true";
      case OS -> "false";
      case PERIODIC -> interval.toMillis() + "ms";
    };
  }
}
