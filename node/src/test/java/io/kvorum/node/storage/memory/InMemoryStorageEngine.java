package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A {@link StorageEngine} on the heap. Operations complete on the calling thread; nothing survives
 * the process. Meant for tests of everything above storage; it behaves as the RocksDB engine does
 * (blind writes keeping the last-writer-wins winner, atomic batches, an index of deaths for
 * purges).
 */
public final class InMemoryStorageEngine implements StorageEngine {
  private final ConcurrentSkipListMap<Key, Record> records = new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListSet<Death> deaths = new ConcurrentSkipListSet<>();

  /**
   * Single-key operations and scan batches take the shared side; a {@link #putAll} takes the
   * exclusive side, so no reader sees part of it.
   */
  private final ReentrantReadWriteLock batches = new ReentrantReadWriteLock();

  private final InMemoryChangeLog changes;
  private final LongAdder batchesWritten = new LongAdder();
  private final LongAdder recordsWritten = new LongAdder();
  private volatile boolean closed;

  public InMemoryStorageEngine() {
    this(System::currentTimeMillis);
  }

  /** An engine whose change log stamps changes by {@code wallMillis} (Unix milliseconds). */
  public InMemoryStorageEngine(LongSupplier wallMillis) {
    this.changes = new InMemoryChangeLog(wallMillis);
  }

  private record Death(long atMillis, Key key) implements Comparable<Death> {
    private static final Comparator<Death> ORDER =
        Comparator.comparingLong(Death::atMillis).thenComparing(Death::key);

    @Override
    public int compareTo(Death other) {
      return ORDER.compare(this, other);
    }
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return checkOpen("get", key)
        .thenApply(ignored -> shared(() -> Optional.ofNullable(records.get(key))));
  }

  /** Everything is in memory: answers unless closed or a batch is being applied. */
  @Override
  public Optional<Optional<Record>> getFromMemory(Key key) {
    if (closed || !batches.readLock().tryLock()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Optional.ofNullable(records.get(key)));
    } finally {
      batches.readLock().unlock();
    }
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    return checkOpen("put", key)
        .thenApply(
            ignored ->
                shared(
                    () -> {
                      List<Entry> entries = List.of(new Entry(key, record));
                      changes.logged(entries, () -> offer(entries));
                      return null;
                    }));
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    return putAll(entries, true);
  }

  @Override
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return putAll(entries, false);
  }

  @Override
  public ChangeLog changes() {
    return changes;
  }

  /** The greatest stamp this engine's change log has taken. */
  public long newestChangeStamp() {
    return changes.newestStamp();
  }

  /**
   * Takes the change log of {@code before} as this engine's, less the changes {@code lost} names,
   * with their stamps: what a replay of the write-ahead log after a power cut leaves (the records
   * were replayed into this engine, which logged them anew).
   */
  public void keepChangesOf(InMemoryStorageEngine before, LongPredicate lost) {
    changes.replaceWith(before.changes, lost);
  }

  private CompletableFuture<Void> putAll(List<Entry> entries, boolean logged) {
    return checkOpen("put", null)
        .thenApply(
            ignored -> {
              batches.writeLock().lock();
              try {
                if (logged) {
                  changes.logged(entries, () -> offer(entries));
                } else {
                  offer(entries);
                }
                return null;
              } finally {
                batches.writeLock().unlock();
              }
            });
  }

  /** Keeps the winner of each record and the stored one, and indexes every record that dies. */
  private Void offer(List<Entry> entries) {
    for (Entry entry : entries) {
      Record record = entry.record();
      records.merge(entry.key(), record, Record::newest);
      if (record.diesAtMillis() != Long.MAX_VALUE) {
        deaths.add(new Death(record.diesAtMillis(), entry.key()));
      }
    }
    batchesWritten.increment();
    recordsWritten.add(entries.size());
    return null;
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return new Cursor(range);
  }

  @Override
  public CompletableFuture<Boolean> drop(Key key, Version version) {
    return checkOpen("drop", key)
        .thenApply(
            ignored ->
                shared(
                    () -> {
                      boolean[] gone = {false};
                      // Atomic per key against concurrent puts: a newer record is never removed.
                      records.computeIfPresent(
                          key,
                          (k, current) -> {
                            gone[0] = current.version().equals(version);
                            return gone[0] ? null : current;
                          });
                      return gone[0];
                    }));
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return checkOpen("purge", null)
        .thenApply(ignored -> shared(() -> purgeDue(deadBeforeMillis, limit)));
  }

  private PurgeResult purgeDue(long deadBeforeMillis, int limit) {
    int examined = 0;
    int removed = 0;
    while (examined < limit) {
      Death death = deaths.pollFirst();
      if (death == null) {
        break;
      }
      if (death.atMillis() >= deadBeforeMillis) {
        deaths.add(death);
        break;
      }
      examined++;
      boolean[] gone = {false};
      // Atomic per key against concurrent puts: a newer record is never removed.
      records.computeIfPresent(
          death.key(),
          (k, current) -> {
            gone[0] = current.diesAtMillis() < deadBeforeMillis;
            return gone[0] ? null : current;
          });
      if (gone[0]) {
        removed++;
      }
    }
    return new PurgeResult(examined, removed);
  }

  @Override
  public StorageStats stats() {
    return new StorageStats(
        records.size(), 0, 0, 0, batchesWritten.sum(), recordsWritten.sum(), 0, 0, false);
  }

  @Override
  public void close() {
    closed = true;
  }

  private <T> T shared(Supplier<T> operation) {
    batches.readLock().lock();
    try {
      return operation.get();
    } finally {
      batches.readLock().unlock();
    }
  }

  private CompletableFuture<Void> checkOpen(String operation, Key key) {
    return closed
        ? CompletableFuture.failedFuture(
            new StorageException(StorageException.Kind.FAILURE, operation, key, null))
        : CompletableFuture.completedFuture(null);
  }

  private final class Cursor implements ScanCursor {
    private final KeyRange range;
    private Key after;
    private boolean done;

    Cursor(KeyRange range) {
      this.range = range;
      this.done = range.isEmpty();
    }

    @Override
    public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
      return checkOpen("scan", range.start())
          .thenApply(ignored -> shared(() -> batch(maxEntries, maxBytes)));
    }

    private List<Entry> batch(int maxEntries, long maxBytes) {
      List<Entry> batch = new ArrayList<>();
      if (done) {
        return batch;
      }
      NavigableMap<Key, Record> view =
          after == null ? records.tailMap(range.start(), true) : records.tailMap(after, false);
      if (range.end().isPresent()) {
        view = view.headMap(range.end().get(), false);
      }
      long bytes = 0;
      for (Map.Entry<Key, Record> e : view.entrySet()) {
        batch.add(new Entry(e.getKey(), e.getValue()));
        bytes += e.getKey().size() + e.getValue().value().length;
        if (batch.size() >= maxEntries || bytes >= maxBytes) {
          break;
        }
      }
      if (batch.isEmpty()) {
        done = true;
      } else {
        after = batch.get(batch.size() - 1).key();
      }
      return batch;
    }

    @Override
    public void close() {
      done = true;
    }
  }
}
