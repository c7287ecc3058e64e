package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Entry;
import io.kvorum.node.storage.ChangeBudget;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeStamps;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * The change log of {@link InMemoryStorageEngine}: changes by stamp on the heap, stamped and closed
 * as the RocksDB engine's ({@link ChangeStamps}).
 */
final class InMemoryChangeLog implements ChangeLog {
  private final ConcurrentSkipListMap<Long, Change> changes = new ConcurrentSkipListMap<>();
  private final LongSupplier wallMillis;
  private volatile ChangeStamps stamps;
  private volatile long purgedBefore;

  InMemoryChangeLog(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
    this.stamps = new ChangeStamps(wallMillis, 0);
  }

  /** The greatest stamp taken so far. */
  long newestStamp() {
    return stamps.newest();
  }

  /**
   * Holds what {@code from} holds but the changes {@code lost} names, stamped as there: a log
   * replayed after a power cut keeps its entries' keys, and so their stamps. Not concurrent with a
   * write.
   */
  void replaceWith(InMemoryChangeLog from, LongPredicate lost) {
    changes.clear();
    from.changes.forEach(
        (stamp, change) -> {
          if (!lost.test(stamp)) {
            changes.put(stamp, change);
          }
        });
    purgedBefore = from.purgedBefore;
    stamps = new ChangeStamps(wallMillis, changes.isEmpty() ? 0 : changes.lastKey());
  }

  /** Applies {@code entries} with {@code apply} and logs them, as one write. */
  void logged(List<Entry> entries, Runnable apply) {
    long first = stamps.take(entries.size());
    try {
      apply.run();
      long stamp = first;
      for (Entry entry : entries) {
        changes.put(stamp, new Change(stamp, entry.key(), entry.record()));
        stamp++;
      }
    } finally {
      stamps.release(first);
    }
  }

  @Override
  public CompletableFuture<List<Page>> readAll(List<Read> reads) {
    ChangeBudget budget = new ChangeBudget();
    return CompletableFuture.completedFuture(reads.stream().map(r -> read(r, budget)).toList());
  }

  private Page read(Read read, ChangeBudget budget) {
    long closed = stamps.closed();
    if (closed <= read.after()) {
      return new Page(List.of(), read.after(), purgedBefore, false);
    }
    if (budget.spent()) {
      return read.deferred(purgedBefore);
    }
    ChangeBudget.Reading reading = budget.reading(read);
    for (Map.Entry<Long, Change> e : changes.subMap(read.after(), false, closed, true).entrySet()) {
      Change change = e.getValue();
      if (!reading.next(e.getKey(), change.key(), change::record)) {
        break;
      }
    }
    return reading.page(closed, purgedBefore);
  }

  @Override
  public CompletableFuture<Void> purge(long before) {
    changes.headMap(before).clear();
    purgedBefore = Math.max(purgedBefore, before);
    return CompletableFuture.completedFuture(null);
  }
}
