package io.kvorum.node.antientropy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The byte rate a node sends repair data at (records it pushes to peers and records it streams to a
 * peer that pulls), shared by every exchange: a generic cell rate algorithm that lets a burst of a
 * quarter second's worth through and delays the rest. Waiting never blocks a thread: a permit that
 * must wait completes later on the timer.
 */
public final class RepairRate {
  private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final long bytesPerSecond;
  private final ScheduledExecutorService timer;
  private final LongSupplier nanoTime;
  private long theoreticalArrival;
  private boolean started;

  /**
   * @param timer keeps the waits
   * @param nanoTime monotonic time, as {@code timer} keeps it (a simulation's virtual time)
   */
  public RepairRate(long bytesPerSecond, ScheduledExecutorService timer, LongSupplier nanoTime) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("the repair rate must be positive: " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.timer = timer;
    this.nanoTime = nanoTime;
  }

  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** How many bytes one batch should hold at most so that its wait stays short. */
  long batchBytes() {
    return Math.max(4096, Math.min(1 << 20, bytesPerSecond / 8));
  }

  /** How long sending {@code bytes} now must wait, in nanoseconds; reserves them. */
  synchronized long reserve(long bytes) {
    long now = nanoTime.getAsLong();
    if (!started || theoreticalArrival - now < 0) {
      theoreticalArrival = now;
      started = true;
    }
    theoreticalArrival += (long) (bytes * 1e9 / bytesPerSecond);
    return Math.max(0, theoreticalArrival - now - BURST_NANOS);
  }

  /** Completes once {@code bytes} may be sent. */
  public CompletableFuture<Void> acquire(long bytes) {
    long wait = reserve(bytes);
    if (wait == 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> permitted = new CompletableFuture<>();
    timer.schedule(() -> permitted.complete(null), wait, TimeUnit.NANOSECONDS);
    return permitted;
  }
}
