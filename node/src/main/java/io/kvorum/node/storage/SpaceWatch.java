package io.kvorum.node.storage;

import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node's storage refuses writes for lack of space, learnt from the outcome of its
 * writes: one log line when a write is first refused with {@link FailureKind#NO_SPACE}, one when a
 * write succeeds again, and the gauge {@code kvorum_storage_no_space} (1 in between). While the
 * disk is full every write fails the same way; logging each would flood the log.
 *
 * <p>Writes complete on several threads (each event loop writes at once, the storage thread writes
 * what is queued), so outcomes can be reported in another order than the writes were made: a write
 * refused just before space came back may be reported just after a later write succeeded. Each
 * outcome therefore comes with the time its write was issued, and only a write issued after the one
 * that last changed the state can change it again: a stale outcome would have the state flip back
 * and forth, and the log say the disk filled again when it did not.
 */
public final class SpaceWatch {
  private static final Logger log = LoggerFactory.getLogger(SpaceWatch.class);

  private volatile boolean full;

  /** When the write that last changed {@link #full} was issued ({@link System#nanoTime}). */
  private long changedBy;

  private boolean changedYet;

  public SpaceWatch(MeterRegistry registry) {
    Gauge.builder("kvorum.storage.no.space", this, w -> w.full ? 1 : 0)
        .description(
            "1 from a write refused because the disk (or --max-disk-usage) is full until a write"
                + " succeeds again, else 0")
        .register(registry);
  }

  /**
   * Reports a write's outcome: {@code error} null for success. Other failures change nothing.
   *
   * @param issuedNanos when the write was asked of the storage engine ({@link System#nanoTime})
   */
  public void written(long issuedNanos, Throwable error) {
    boolean refused = error != null && FailureKind.of(error) == FailureKind.NO_SPACE;
    if ((error != null && !refused) || refused == full) {
      return; // the common case, a success while there is space: one volatile read
    }
    synchronized (this) {
      if (refused == full || (changedYet && issuedNanos - changedBy < 0)) {
        return;
      }
      full = refused;
      changedBy = issuedNanos;
      changedYet = true;
      // Under the lock, so that the log's order is the changes' order; they are rare.
      if (refused) {
        log.warn(
            "the disk is full: writes are refused (507) until space is freed, reads go on ({})",
            Failures.unwrap(error).getMessage());
      } else {
        log.info("disk space is back: writes succeed again");
      }
    }
  }
}
