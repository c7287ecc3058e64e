package io.kvorum.node.storage;

import io.kvorum.node.core.FailureStreak;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Syncs a node's write-ahead log at least every interval ({@code --sync-writes INTERVAL}, {@link
 * WalSync#periodic}), on a thread of its own: an fsync may take long on a slow disk, and must never
 * hold up an event loop, the timer thread or a storage thread. A power cut then loses at most what
 * was acknowledged in the last interval plus the time one sync takes; a sync that outlasts the
 * interval is followed by the next at once. {@code kvorum_storage_wal_sync_seconds} times each sync
 * that wrote something (its count is the syncs made, its maximum the worst added to the window).
 */
public final class WalSyncer {
  private static final Logger log = LoggerFactory.getLogger(WalSyncer.class);

  private final BooleanSupplier sync;
  private final Timer syncs;
  private final FailureStreak failures = new FailureStreak();

  private WalSyncer(BooleanSupplier sync, Timer syncs) {
    this.sync = sync;
    this.syncs = syncs;
  }

  /**
   * Starts syncing every {@code interval} on {@code thread}, which the caller stops before it
   * closes the storage (a clean close syncs the log itself).
   *
   * @param sync syncs the log if anything was written since its last sync; whether it synced
   * @param thread a thread for this alone
   */
  public static WalSyncer start(
      BooleanSupplier sync,
      Duration interval,
      ScheduledExecutorService thread,
      MeterRegistry registry) {
    Timer syncs =
        Timer.builder("kvorum.storage.wal.sync")
            .description(
                "fsyncs of the write-ahead log made every --sync-writes interval when something"
                    + " was written")
            .register(registry);
    WalSyncer syncer = new WalSyncer(sync, syncs);
    long period = interval.toNanos();
    // Fixed rate: the next sync is due one interval after the last one started, not ended.
    thread.scheduleAtFixedRate(syncer::syncNow, period, period, TimeUnit.NANOSECONDS);
    return syncer;
  }

  /** One round: syncs if anything was written; a failure is logged when it starts and ends. */
  void syncNow() {
    long started = System.nanoTime();
    try {
      if (sync.getAsBoolean()) {
        syncs.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
      }
      if (failures.succeeded()) {
        log.info("the write-ahead log is synced again");
      }
    } catch (RuntimeException e) {
      if (failures.failed(e)) {
        log.error(
            "cannot sync the write-ahead log: writes acknowledged since the last sync would not"
                + " survive a power cut; retried every interval, repeats not logged",
            e);
      }
    }
  }
}
