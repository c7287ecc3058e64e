package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
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

/**
 * A {@link StorageEngine} on the heap. Operations complete on the calling thread; nothing survives
 * the process. Meant for tests of everything above storage.
 */
public final class InMemoryStorageEngine implements StorageEngine {
  private final ConcurrentSkipListMap<Key, Record> records = new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListSet<Death> deaths = new ConcurrentSkipListSet<>();
  private volatile boolean closed;

  private record Death(long atMillis, Key key, Version version) implements Comparable<Death> {
    private static final Comparator<Death> ORDER =
        Comparator.comparingLong(Death::atMillis)
            .thenComparing(Death::key)
            .thenComparing(Death::version);

    @Override
    public int compareTo(Death other) {
      return ORDER.compare(this, other);
    }
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return checkOpen("get", key).thenApply(ignored -> Optional.ofNullable(records.get(key)));
  }

  @Override
  public CompletableFuture<Boolean> put(Key key, Record record) {
    return checkOpen("put", key)
        .thenApply(
            ignored -> {
              // Decided by last-writer-wins, not identity: re-putting the stored instance is no
              // change, as in every other engine. compute may retry; its last call decides.
              boolean[] superseded = {false};
              records.compute(
                  key,
                  (k, current) -> {
                    superseded[0] = record.supersedes(current);
                    return superseded[0] ? record : current;
                  });
              boolean applied = superseded[0];
              if (applied && record.diesAtMillis() != Long.MAX_VALUE) {
                deaths.add(new Death(record.diesAtMillis(), key, record.version()));
              }
              return applied;
            });
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return new Cursor(range);
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return checkOpen("purge", null)
        .thenApply(
            ignored -> {
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
                records.computeIfPresent(
                    death.key(),
                    (k, current) -> {
                      boolean same =
                          current.version().equals(death.version())
                              && current.diesAtMillis() < deadBeforeMillis;
                      gone[0] = same;
                      return same ? null : current;
                    });
                if (gone[0]) {
                  removed++;
                }
              }
              return new PurgeResult(examined, removed);
            });
  }

  @Override
  public StorageStats stats() {
    return new StorageStats(records.size(), 0, 0, 0);
  }

  @Override
  public void close() {
    closed = true;
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
      return checkOpen("scan", range.start()).thenApply(ignored -> batch(maxEntries, maxBytes));
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
