package io.kvorum.node.clock;

import io.kvorum.node.core.Version;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hybrid logical clock (Kulkarni et al.): physical milliseconds from the wall clock, with a
 * logical counter that orders events within one millisecond or while the wall clock lags behind a
 * timestamp already seen.
 *
 * <p>Monotonic across restarts: before issuing a version whose physical part reaches the persisted
 * ceiling, the clock persists a new ceiling {@code window} ahead; on start it resumes from the
 * stored ceiling, so no version issued before a crash can be issued again or undercut. {@link
 * #refreshCeiling()}, called periodically off the request path, keeps the ceiling ahead so that
 * {@link #now()} practically never writes to disk itself. A ceiling that cannot be stored (a {@link
 * io.kvorum.node.core.StorageException}, {@code NO_SPACE} on a full disk) is never passed: {@link
 * #now()} fails with that exception instead of issuing a version at or past the stored ceiling, and
 * the next call tries again.
 */
public final class HybridLogicalClock implements Clock {
  private static final Logger log = LoggerFactory.getLogger(HybridLogicalClock.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** How far ahead of issued versions a node keeps its persisted ceiling. */
  public static final Duration CEILING_WINDOW = Duration.ofSeconds(1);

  /**
   * How often a node calls {@link #refreshCeiling()}: often enough within {@link #CEILING_WINDOW}
   * that requests practically never wait for the ceiling's disk write.
   */
  public static final Duration CEILING_RENEWAL = Duration.ofMillis(250);

  private final LongSupplier wall;
  private final CeilingStore store;
  private final long windowMillis;
  private final long maxForwardDriftMillis;
  private final AtomicLong state = new AtomicLong();
  private final Object persistLock = new Object();
  private volatile long ceiling;
  // A peer whose clock is far ahead stamps every message it sends: one warning per period.
  private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

  private HybridLogicalClock(
      LongSupplier wall, CeilingStore store, long windowMillis, long maxForwardDriftMillis) {
    this.wall = wall;
    this.store = store;
    this.windowMillis = windowMillis;
    this.maxForwardDriftMillis = maxForwardDriftMillis;
  }

  /**
   * Starts a clock that resumes after every version issued by an earlier run using {@code store}.
   *
   * @param wall the wall clock, Unix milliseconds
   * @param window how far ahead of issued versions the persisted ceiling is kept
   * @param maxForwardDrift remote timestamps further than this ahead of the wall clock are not
   *     followed, so one node with a broken clock cannot drag every version into the future
   */
  public static HybridLogicalClock start(
      CeilingStore store, LongSupplier wall, Duration window, Duration maxForwardDrift) {
    HybridLogicalClock clock =
        new HybridLogicalClock(wall, store, window.toMillis(), maxForwardDrift.toMillis());
    long stored = store.load();
    long start = Math.max(wall.getAsLong(), stored);
    clock.state.set(pack(start, 0));
    clock.persist(start + clock.windowMillis);
    return clock;
  }

  /** A clock on the system wall clock with a one-second ceiling window and one minute of drift. */
  public static HybridLogicalClock start(CeilingStore store) {
    return start(store, System::currentTimeMillis, Duration.ofSeconds(1), Duration.ofMinutes(1));
  }

  @Override
  public Version now() {
    while (true) {
      long current = state.get();
      long wallNow = wall.getAsLong();
      // Adding one carries a full logical counter into the physical part: still strictly greater.
      long next = wallNow > physical(current) ? pack(wallNow, 0) : current + 1;
      if (physical(next) >= ceiling) {
        persist(physical(next) + windowMillis);
      }
      if (state.compareAndSet(current, next)) {
        return new Version(next);
      }
    }
  }

  @Override
  public void observe(Version remote) {
    long remotePhysical = remote.physicalMillis();
    long wallNow = wall.getAsLong();
    if (remotePhysical > wallNow + maxForwardDriftMillis) {
      long now = System.nanoTime();
      long next = nextWarning.get();
      if (now - next >= 0 && nextWarning.compareAndSet(next, now + WARN_EVERY_NANOS)) {
        log.warn(
            "ignoring a remote timestamp {} ms ahead of the local wall clock (limit {} ms);"
                + " check clock synchronisation (logged at most every 10 s)",
            remotePhysical - wallNow,
            maxForwardDriftMillis);
      }
      return;
    }
    // Persisted before it is followed, like an issued version: after a crash the clock must still
    // resume past every timestamp it was shown (the Clock contract).
    if (remotePhysical >= ceiling) {
      persist(remotePhysical + windowMillis);
    }
    state.accumulateAndGet(remote.value(), Math::max);
  }

  @Override
  public Version current() {
    return new Version(state.get());
  }

  @Override
  public long wallMillis() {
    return wall.getAsLong();
  }

  /**
   * Completes once this clock's versions are within the max forward drift (the max clock offset) of
   * its wall clock, at the latest after {@code limit}: after a quick restart the clock resumes from
   * its persisted ceiling, up to a ceiling window ahead, and peers refuse versions that far ahead.
   * Checks every 20 ms on {@code timers}, which also keep the limit; never completes exceptionally.
   */
  public CompletableFuture<Void> settled(ScheduledExecutorService timers, Duration limit) {
    CompletableFuture<Void> settled = new CompletableFuture<>();
    ScheduledFuture<?> poll =
        timers.scheduleWithFixedDelay(
            () -> {
              if (current().physicalMillis() - wallMillis() <= maxForwardDriftMillis) {
                settled.complete(null);
              }
            },
            0,
            20,
            TimeUnit.MILLISECONDS);
    ScheduledFuture<?> giveUp =
        timers.schedule(() -> settled.complete(null), limit.toMillis(), TimeUnit.MILLISECONDS);
    return settled.whenComplete(
        (ok, error) -> {
          poll.cancel(false);
          giveUp.cancel(false);
        });
  }

  /** Persists a fresh ceiling when the current one is less than half a window ahead. */
  public void refreshCeiling() {
    long horizon = Math.max(physical(state.get()), wall.getAsLong());
    if (ceiling - horizon < windowMillis / 2) {
      persist(horizon + windowMillis);
    }
  }

  private void persist(long newCeiling) {
    synchronized (persistLock) {
      if (newCeiling > ceiling) {
        store.store(newCeiling);
        ceiling = newCeiling;
      }
    }
  }

  private static long pack(long physicalMillis, int logical) {
    return physicalMillis << Version.LOGICAL_BITS | logical;
  }

  private static long physical(long packed) {
    return packed >>> Version.LOGICAL_BITS;
  }
}
