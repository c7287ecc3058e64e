package io.kvorum.node.storage;

import io.kvorum.node.core.Version;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * Issues the stamps of a {@link ChangeLog} and tells up to which stamp the log is closed. A writer
 * takes stamps before it writes ({@link #take}) and gives them back once the write is visible or
 * failed ({@link #release}); the log is closed below the oldest stamp still being written, or up to
 * now when none is. Stamps follow the wall clock (its milliseconds in the high bits, a counter in
 * the low ones) and never go back, also when the wall clock does. Thread-safe; a short lock.
 */
public final class ChangeStamps {
  private final LongSupplier wallMillis;
  private final TreeSet<Long> writing = new TreeSet<>();
  private long last;
  private volatile long newest;

  /**
   * @param wallMillis the node's wall clock, Unix milliseconds
   * @param last the greatest stamp the log holds already (0 if none)
   */
  public ChangeStamps(LongSupplier wallMillis, long last) {
    this.wallMillis = wallMillis;
    this.last = last;
    this.newest = last;
  }

  /** The stamp of a wall-clock time, below every stamp issued at or after it. */
  public static long of(long wallMillis) {
    return Version.of(Math.max(0, wallMillis), 0).value();
  }

  /** Takes {@code count} consecutive stamps for a write that starts now; the first is returned. */
  public synchronized long take(int count) {
    long first = Math.max(last + 1, of(wallMillis.getAsLong()));
    last = first + count - 1;
    newest = last;
    writing.add(first);
    return first;
  }

  /** The write that took stamps from {@code first} is visible now, or failed. */
  public synchronized void release(long first) {
    writing.remove(first);
  }

  /**
   * The greatest stamp taken so far (or the log held at the start). Asked after {@link #closed}:
   * when it is at most a read's position, nothing was written between that position and the closed
   * stamp, and the read needs no look at the log.
   */
  public long newest() {
    return newest;
  }

  /**
   * A stamp up to which every change is visible: below the oldest still being written, else now.
   * Stamps taken later are greater.
   */
  public synchronized long closed() {
    if (!writing.isEmpty()) {
      return writing.first() - 1;
    }
    last = Math.max(last, of(wallMillis.getAsLong()));
    return last;
  }
}
