package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.ChangeBudget;
import io.kvorum.node.storage.ChangeLog.Page;
import io.kvorum.node.storage.ChangeLog.Read;
import io.kvorum.node.storage.ChangeStamps;
import io.kvorum.node.storage.rocksdb.WriteCombiner.EncodedRecord;
import io.kvorum.node.storage.rocksdb.WriteCombiner.Write;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The change log in the {@code changes} column family: its key is the change's stamp (8 bytes
 * big-endian, so RocksDB's order is arrival order) followed by the record's key, its value the
 * record in {@link RecordCodec}'s form; so a read filters by range on the keys alone, and copies a
 * value out of RocksDB only for a change it returns. A logged record and its change are put in the
 * same {@link WriteBatch}, so they are visible, durable and lost together. Purged by a range delete
 * of the stamps before the retention. Callers run these methods on the engine's executor under its
 * open-engine guard, except {@link #log}, which runs in the writer's batch.
 */
final class ChangeColumn {
  private final RocksDB db;
  private final ColumnFamilyHandle column;
  private final WriteOptions writes;
  private final ChangeStamps stamps;
  private final boolean capturing;
  private volatile long purgedBefore;

  /** A write's stamps, given back once the write is visible or failed. */
  interface Stamped extends AutoCloseable {
    @Override
    void close();
  }

  private static final Stamped NOTHING = () -> {};

  ChangeColumn(
      RocksDB db,
      ColumnFamilyHandle column,
      WriteOptions writes,
      boolean capturing,
      LongSupplier wallMillis) {
    this.db = db;
    this.column = column;
    this.writes = writes;
    this.capturing = capturing;
    this.stamps = new ChangeStamps(wallMillis, newestStamp());
  }

  /** The stamp of the newest change the log holds; 0 if it holds none. */
  private long newestStamp() {
    try (RocksIterator it = db.newIterator(column)) {
      it.seekToLast();
      return it.isValid() ? ByteBuffer.wrap(it.key()).getLong() : 0;
    }
  }

  /** The stamp of the oldest change the log holds; {@link Long#MAX_VALUE} if it holds none. */
  private long oldestStamp() {
    try (RocksIterator it = db.newIterator(column)) {
      it.seekToFirst();
      return it.isValid() ? ByteBuffer.wrap(it.key()).getLong() : Long.MAX_VALUE;
    }
  }

  boolean capturing() {
    return capturing;
  }

  /**
   * Adds a change for every record of {@code group}'s logged writes to {@code batch}; the stamps
   * are to be given back (closed) once the batch is written or failed.
   */
  Stamped log(WriteBatch batch, List<Write> group) throws RocksDBException {
    if (!capturing) {
      return NOTHING;
    }
    int count = 0;
    for (Write w : group) {
      count += w.logged ? w.records.size() : 0;
    }
    if (count == 0) {
      return NOTHING;
    }
    long first = stamps.take(count);
    try {
      long stamp = first;
      for (Write w : group) {
        if (w.logged) {
          for (EncodedRecord r : w.records) {
            batch.put(column, changeKey(stamp++, r.key()), r.bytes());
          }
        }
      }
    } catch (RocksDBException | RuntimeException e) {
      stamps.release(first);
      throw e;
    }
    return () -> stamps.release(first);
  }

  /**
   * The changes {@code read} asks for, within what {@code budget} leaves (see {@link
   * io.kvorum.node.storage.ChangeLog#readAll}).
   */
  Page read(Read read, ChangeBudget budget) {
    long closed = stamps.closed(); // before the iterator: every change up to it is visible to it
    if (closed <= read.after()) {
      return new Page(List.of(), read.after(), purgedBefore, false);
    }
    if (stamps.newest() <= read.after()) {
      return new Page(List.of(), closed, purgedBefore, false); // nothing written since: no iterator
    }
    if (budget.spent()) {
      return read.deferred(purgedBefore);
    }
    ChangeBudget.Reading reading = budget.reading(read);
    try (Slice upper = new Slice(stampKey(closed + 1));
        ReadOptions bounded = new ReadOptions().setIterateUpperBound(upper);
        RocksIterator it = db.newIterator(column, bounded)) {
      Supplier<Record> current = () -> RecordCodec.decode(it.value()); // the entry it is at
      for (it.seek(stampKey(read.after() + 1)); it.isValid(); it.next()) {
        byte[] entry = it.key();
        long stamp = ByteBuffer.wrap(entry).getLong();
        Key key = Key.of(Arrays.copyOfRange(entry, Long.BYTES, entry.length));
        if (!reading.next(stamp, key, current)) {
          break;
        }
      }
    }
    return reading.page(closed, purgedBefore);
  }

  /**
   * Deletes the changes stamped before {@code before}: drops the files that hold only such changes,
   * then range-deletes the rest from the oldest change still there. Nothing is written when no
   * change is that old: a range delete reaching below the oldest change would make the next flushed
   * file span every stamp, and each minute's purge would then have the compactions rewrite the
   * whole log. Readers learn of the purge before anything is deleted ({@link Page#purgedBefore}).
   */
  void purge(long before) throws RocksDBException {
    purgedBefore = Math.max(purgedBefore, before);
    long oldest = oldestStamp();
    if (oldest >= before) {
      return;
    }
    byte[] from = stampKey(oldest);
    byte[] to = stampKey(before);
    db.deleteFilesInRanges(column, List.of(from, to), false);
    db.deleteRange(column, writes, from, to);
  }

  private static byte[] stampKey(long stamp) {
    return ByteBuffer.allocate(Long.BYTES).putLong(stamp).array();
  }

  /** The key of the change stamped {@code stamp} to {@code key}. */
  private static byte[] changeKey(long stamp, Key key) {
    byte[] bytes = key.bytes();
    return ByteBuffer.allocate(Long.BYTES + bytes.length).putLong(stamp).put(bytes).array();
  }
}
