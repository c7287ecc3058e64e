package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.rocksdb.AbstractSlice;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * A scan of the records column family over a snapshot taken at its first batch, so a batch of
 * writes shows in it entirely or not at all. RocksDB objects are touched only under the cursor's
 * monitor, on the engine's executor.
 */
final class RocksDbCursor implements ScanCursor {
  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final ColumnFamilyHandle records;
  private final KeyRange range;
  private Snapshot snapshot;
  private AbstractSlice<?> upperBound;
  private ReadOptions options;
  private RocksIterator iterator;
  private boolean released;

  RocksDbCursor(
      RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle records, KeyRange range) {
    this.engine = engine;
    this.db = db;
    this.records = records;
    this.range = range;
    this.released = range.isEmpty();
    engine.register(this);
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    return engine.submit("scan", range.start(), () -> batch(maxEntries, maxBytes));
  }

  private synchronized List<Entry> batch(int maxEntries, long maxBytes) throws RocksDBException {
    List<Entry> batch = new ArrayList<>();
    if (released) {
      return batch;
    }
    if (iterator == null) {
      snapshot = db.getSnapshot();
      options = new ReadOptions().setSnapshot(snapshot).setFillCache(false);
      if (range.end().isPresent()) {
        upperBound = new Slice(range.end().get().bytes());
        options.setIterateUpperBound(upperBound);
      }
      iterator = db.newIterator(records, options);
      iterator.seek(range.start().bytes());
    }
    long bytes = 0;
    while (iterator.isValid() && batch.size() < maxEntries && bytes < maxBytes) {
      Entry entry = new Entry(Key.of(iterator.key()), RecordCodec.decode(iterator.value()));
      batch.add(entry);
      bytes += entry.key().size() + entry.record().value().length;
      iterator.next();
    }
    iterator.status();
    if (batch.isEmpty()) {
      release();
    }
    return batch;
  }

  @Override
  public void close() {
    engine.release(this);
  }

  synchronized void release() {
    released = true;
    engine.unregister(this);
    if (iterator != null) {
      iterator.close();
      options.close();
      if (upperBound != null) {
        upperBound.close();
      }
      db.releaseSnapshot(snapshot);
      iterator = null;
    }
  }
}
