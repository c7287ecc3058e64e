package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.KeyRange;
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
  private static final int MAX_EXAMINED = 4096;

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
  public CompletableFuture<Page> read(KeyRange range, long after, int limit) {
    long closed = stamps.closed();
    if (closed <= after) {
      return CompletableFuture.completedFuture(new Page(List.of(), after, purgedBefore, false));
    }
    List<Change> page = new ArrayList<>();
    long last = after;
    int examined = 0;
    for (Map.Entry<Long, Change> e : changes.subMap(after, false, closed, true).entrySet()) {
      if (examined == MAX_EXAMINED || page.size() == limit) {
        return CompletableFuture.completedFuture(new Page(page, last, purgedBefore, true));
      }
      examined++;
      last = e.getKey();
      if (range.contains(e.getValue().key())) {
        page.add(e.getValue());
      }
    }
    return CompletableFuture.completedFuture(new Page(page, closed, purgedBefore, false));
  }

  @Override
  public CompletableFuture<Void> purge(long before) {
    changes.headMap(before).clear();
    purgedBefore = Math.max(purgedBefore, before);
    return CompletableFuture.completedFuture(null);
  }
}
