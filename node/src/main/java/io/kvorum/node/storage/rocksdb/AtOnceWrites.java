package io.kvorum.node.storage.rocksdb;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * When a put may be written on the thread that asks for it (run to completion) instead of being
 * handed to the engine's executor: the hand-off and the answer's way back cost two thread wake-ups
 * per write, more CPU at a moderate rate than the write itself
 * (docs/decisions/small-writes-run-on-the-event-loop.md).
 *
 * <p>The caller is usually an event loop, which must never wait. So a write is tried at once only
 * if it cannot wait on anything: no fsync ({@code --sync-writes} off: then every write is queued),
 * small ({@link #MAX_BYTES}), RocksDB's {@code no_slowdown} (a write stall answers Incomplete at
 * once instead of sleeping), and no lock another thread holds (the engine's guard and the purge
 * gate are tried, never waited for). When RocksDB answers Incomplete, or a write took longer than
 * {@link #SLOW} anyway (a page-cache write held up by the kernel's dirty-page throttling, say; the
 * bound is well above a time slice, so that a thread merely preempted on a busy machine does not
 * count), writes are queued for {@link #PAUSE}, as before, and tried at once again after it: Redis
 * writes its append-only file from its event loop the same way. Durability is the queued path's:
 * without fsync, a write is in the operating system's page cache before it completes, so it
 * survives the process being killed.
 */
final class AtOnceWrites {
  /** The largest put written at once; a bigger one (a join's batch, say) is queued. */
  static final long MAX_BYTES = 64 << 10;

  /** A write at once that took longer than this sends writes to the queue for a while. */
  static final Duration SLOW = Duration.ofMillis(20);

  /** How long writes are queued after a stall or a slow write before they are tried at once. */
  static final Duration PAUSE = Duration.ofSeconds(1);

  private final LongSupplier nanos;
  private volatile long queueUntil;
  private volatile boolean pausing;

  /**
   * @param nanos a monotonic clock, nanoseconds ({@link System#nanoTime})
   */
  AtOnceWrites(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /** Whether a put of {@code bytes} should be tried at once now. */
  boolean mayTry(long bytes) {
    return bytes <= MAX_BYTES && (!pausing || pauseOver());
  }

  private boolean pauseOver() {
    if (nanos.getAsLong() - queueUntil < 0) {
      return false;
    }
    pausing = false;
    return true;
  }

  /**
   * Writes {@code batch} now if the purge gate is free and RocksDB takes it without waiting; false,
   * having written nothing, if not (after a stall, writes are queued for {@link #PAUSE}).
   *
   * @throws RocksDBException if RocksDB refused the write for another reason (a full disk)
   */
  boolean write(Purger purger, WriteOptions options, WriteBatch batch) throws RocksDBException {
    long start = nanos.getAsLong();
    try {
      if (!purger.tryWrite(options, batch)) {
        return false;
      }
    } catch (RocksDBException e) {
      if (e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete) {
        stalled();
        return false;
      }
      throw e;
    }
    written(nanos.getAsLong() - start);
    return true;
  }

  /** A write at once was made; it took {@code tookNanos}. */
  void written(long tookNanos) {
    if (tookNanos > SLOW.toNanos()) {
      pause();
    }
  }

  /** RocksDB would have had the write wait (a write stall): nothing was written. */
  void stalled() {
    pause();
  }

  private void pause() {
    queueUntil = nanos.getAsLong() + PAUSE.toNanos();
    pausing = true;
  }
}
