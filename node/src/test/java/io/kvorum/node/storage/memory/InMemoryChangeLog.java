package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Entry;
import io.kvorum.node.storage.ChangeBudget;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeStamps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

/**
 * The change log of {@link InMemoryStorageEngine}: changes by stamp on the heap, stamped and closed
 * as the RocksDB engine's ({@link ChangeStamps}).
 */
final class InMemoryChangeLog implements ChangeLog {
  private final ConcurrentSkipListMap<Long, Change> changes = new ConcurrentSkipListMap<>();
  private final ChangeStamps stamps;
  private volatile long purgedBefore;

  InMemoryChangeLog(LongSupplier wallMillis) {
    this.stamps = new ChangeStamps(wallMillis, 0);
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
    List<Change> page = new ArrayList<>();
    long last = read.after();
    int examined = 0;
    for (Map.Entry<Long, Change> e : changes.subMap(read.after(), false, closed, true).entrySet()) {
      if (page.size() == read.limit() || !budget.mayExamine(examined, page.size())) {
        return new Page(page, last, purgedBefore, true);
      }
      Change change = e.getValue();
      if (read.range().contains(change.key())) {
        if (!budget.take(change, page.size())) {
          return new Page(page, last, purgedBefore, true);
        }
        page.add(change);
      }
      examined++;
      budget.examined();
      last = e.getKey();
    }
    return new Page(page, closed, purgedBefore, false);
  }

  @Override
  public CompletableFuture<Void> purge(long before) {
    changes.headMap(before).clear();
    purgedBefore = Math.max(purgedBefore, before);
    return CompletableFuture.completedFuture(null);
  }
}
