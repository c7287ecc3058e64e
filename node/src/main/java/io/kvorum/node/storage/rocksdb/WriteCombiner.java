package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.OverloadedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Group commit: writes that arrive while a group is being written are written together by the next
 * one, so concurrent puts (the coordinator's own and its peers' replica writes) share one
 * write-ahead-log append and, with fsync on, one fsync.
 *
 * <p>Writes wait in a lock-free queue. At most one drain task runs on the executor at a time; it is
 * scheduled by the write that finds none scheduled, so a write arriving at an idle engine is
 * written at once (no added delay), and a busy engine takes whatever accumulated meanwhile, up to a
 * bounded group. A group is written all or nothing; every write in it completes (on the executor)
 * once the group is written, or fails with the group. At most {@code maxQueued} writes wait: beyond
 * that, or when the executor refuses the drain task, writes fail at once with {@link
 * OverloadedException}.
 */
final class WriteCombiner {
  /** Drain rounds one task runs before it yields its thread to other queued storage calls. */
  private static final int ROUNDS_PER_TASK = 16;

  /** Writes a group of writes as one atomic batch, or throws having written none of them. */
  @FunctionalInterface
  interface Sink {
    void write(List<Write> group);
  }

  /**
   * One put or putAll: records written together or not at all, and the future their caller holds.
   */
  static final class Write {
    final List<EncodedRecord> records;
    final long bytes;

    /** Whether the records are logged as changes (all but those a membership change streams). */
    final boolean logged;

    final CompletableFuture<Void> done = new CompletableFuture<>();

    Write(List<EncodedRecord> records, boolean logged) {
      this.records = records;
      this.logged = logged;
      long sum = 0;
      for (EncodedRecord r : records) {
        sum += r.key().size() + r.bytes().length;
      }
      this.bytes = sum;
    }

    /** The key a failure of {@code group} names: the only one it writes, or none. */
    static Key onlyKey(List<Write> group) {
      return group.size() == 1 && group.get(0).records.size() == 1
          ? group.get(0).records.get(0).key()
          : null;
    }
  }

  /** A record ready to be written: its key, its stored form, and when it dies (for purging). */
  record EncodedRecord(Key key, byte[] bytes, long diesAtMillis) {}

  private final Executor executor;
  private final Sink sink;
  private final int maxQueued;
  private final int maxGroupRecords;
  private final long maxGroupBytes;
  private final ConcurrentLinkedQueue<Write> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  /**
   * @param maxGroupRecords a group stops growing once it holds this many records
   * @param maxGroupBytes a group stops growing once its keys and records reach this many bytes
   */
  WriteCombiner(
      Executor executor, Sink sink, int maxQueued, int maxGroupRecords, long maxGroupBytes) {
    this.executor = executor;
    this.sink = sink;
    this.maxQueued = maxQueued;
    this.maxGroupRecords = maxGroupRecords;
    this.maxGroupBytes = maxGroupBytes;
  }

  /**
   * Queues {@code records} to be written together (logged as changes or not); completes once they
   * are.
   */
  CompletableFuture<Void> submit(List<EncodedRecord> records, boolean logged) {
    if (queued.incrementAndGet() > maxQueued) {
      queued.decrementAndGet();
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }
    Write write = new Write(records, logged);
    queue.add(write);
    schedule();
    return write.done;
  }

  private void schedule() {
    if (!scheduled.compareAndSet(false, true)) {
      return; // the drain under way takes this write, or sees it when it re-checks the queue
    }
    try {
      executor.execute(this::drain);
    } catch (RejectedExecutionException e) {
      scheduled.set(false);
      // Writes queued since this one saw a drain scheduled and relied on it: none is coming.
      for (Write w = poll(); w != null; w = poll()) {
        w.done.completeExceptionally(new OverloadedException("storage"));
      }
    }
  }

  private void drain() {
    try {
      for (int round = 0; round < ROUNDS_PER_TASK; round++) {
        List<Write> group = takeGroup();
        if (group.isEmpty()) {
          break;
        }
        write(group);
      }
    } finally {
      scheduled.set(false);
      // A write queued after the last take but before the flag was cleared scheduled nothing.
      if (!queue.isEmpty()) {
        schedule();
      }
    }
  }

  private List<Write> takeGroup() {
    List<Write> group = new ArrayList<>();
    int records = 0;
    long bytes = 0;
    while (records < maxGroupRecords && bytes < maxGroupBytes) {
      Write w = poll();
      if (w == null) {
        break;
      }
      group.add(w);
      records += w.records.size();
      bytes += w.bytes;
    }
    return group;
  }

  private Write poll() {
    Write w = queue.poll();
    if (w != null) {
      queued.decrementAndGet();
    }
    return w;
  }

  private void write(List<Write> group) {
    try {
      sink.write(group);
    } catch (RuntimeException e) {
      group.forEach(w -> w.done.completeExceptionally(e));
      return;
    }
    group.forEach(w -> w.done.complete(null));
  }
}
