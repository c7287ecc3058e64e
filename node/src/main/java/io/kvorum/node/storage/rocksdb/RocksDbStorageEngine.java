package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.storage.rocksdb.WriteCombiner.EncodedRecord;
import io.kvorum.node.storage.rocksdb.WriteCombiner.Write;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * {@link StorageEngine} on RocksDB. Records live in the default column family under their raw key,
 * so RocksDB's byte-wise comparator gives the key order and scans stream straight from iterators. A
 * second column family, {@code deaths}, indexes tombstones and expiring values by the time they
 * die, so {@link #purge} visits only records that may be due instead of the whole key space. Two
 * more keep the hints ({@link RocksDbHintStore}) and the Paxos acceptors' states ({@link #paxos}),
 * and a fifth the change log, written in each record batch ({@link ChangeColumn}).
 *
 * <p>Writes are blind: a record is written as a merge operand in {@link RecordCodec}'s form, whose
 * byte order is last-writer-wins, and RocksDB's {@code max} merge operator keeps the winner on read
 * and in compaction. Concurrent puts are written together ({@link WriteCombiner}): one batch, one
 * write-ahead-log append. All RocksDB calls run on the executor given at open. The log is always
 * on: a completed put survives a crash of the process, and one of the machine once the log is
 * synced ({@link WalSync}).
 */
public final class RocksDbStorageEngine implements StorageEngine {
  private static final int GROUP_RECORDS = 512;
  private static final long GROUP_BYTES = 4L << 20;

  static {
    NativeLibrary.load();
  }

  private final Executor executor;
  private final RocksDbOptions options;
  private final RocksDB db;
  private final List<ColumnFamilyHandle> handles;
  private final ColumnFamilyHandle records;
  private final RocksDbHintStore hints;
  private final ReadOptions pointReads = new ReadOptions();

  /** Reads that may not touch the disk: RocksDB answers Incomplete instead of reading a block. */
  private final ReadOptions memoryReads = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);

  private final WriteCombiner combiner;
  private final int maxQueuedWrites;

  /** Null when every put is queued (sync writes, or writes at once turned off). */
  private final AtOnceWrites atOnce;

  private final Purger purger;
  private final ChangeColumn changes;
  private final WalSyncs wal;
  private final WriterErrors errors = new WriterErrors();
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final Set<RocksDbCursor> cursors = ConcurrentHashMap.newKeySet();
  private final LongAdder batchesWritten = new LongAdder();
  private final LongAdder recordsWritten = new LongAdder();
  private final LongAdder batchesAtOnce = new LongAdder();

  private boolean closed;

  RocksDbStorageEngine(
      Executor executor,
      RocksDbOptions options,
      RocksDB db,
      List<ColumnFamilyHandle> handles,
      RocksDbSettings settings,
      Path directory,
      boolean captureChanges) {
    this.executor = executor;
    this.options = options;
    this.db = db;
    this.handles = handles;
    this.records = handles.get(0);
    this.purger = new Purger(db, handles, pointReads, options.writes, options.syncedWrites);
    this.changes =
        new ChangeColumn(
            db, handles.get(4), options.writes, captureChanges, System::currentTimeMillis);
    this.wal = new WalSyncs(this, db, purger, errors, directory);
    this.hints = new RocksDbHintStore(this, db, handles.get(2));
    this.maxQueuedWrites = settings.maxQueuedWrites();
    this.combiner =
        new WriteCombiner(
            executor, this::write, settings.maxQueuedWrites(), GROUP_RECORDS, GROUP_BYTES);
    this.atOnce =
        settings.writesAtOnce() && !settings.sync().everyWrite()
            ? new AtOnceWrites(System::nanoTime)
            : null;
  }

  /** Opens the database in {@code directory} as below, capturing changes. */
  public static RocksDbStorageEngine open(
      Path directory, RocksDbSettings settings, Executor executor) {
    return open(directory, settings, executor, true);
  }

  /**
   * Opens (creating if needed) the database in {@code directory}.
   *
   * @param executor runs every RocksDB call; should be bounded and reject when full
   * @param captureChanges whether writes are logged as changes ({@link #changes})
   * @throws StorageException if the database cannot be opened (in use by another process,
   *     unreadable, corrupt, or written in a record format this version cannot read)
   */
  public static RocksDbStorageEngine open(
      Path directory, RocksDbSettings settings, Executor executor, boolean captureChanges) {
    return RocksDbOpening.open(directory, settings, executor, captureChanges);
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return submit(
        "get",
        key,
        () -> {
          byte[] stored = db.get(records, pointReads, key.bytes());
          return stored == null ? Optional.empty() : Optional.of(RecordCodec.decode(stored));
        });
  }

  /**
   * Answers when every piece of the record (memtables, cached blocks and the index and filter
   * blocks that lead to them) is in memory; empty as soon as RocksDB would need a read from disk,
   * or the engine is closing.
   */
  @Override
  public Optional<Optional<Record>> getFromMemory(Key key) {
    if (!lifecycle.readLock().tryLock()) {
      return Optional.empty();
    }
    try {
      if (closed) {
        return Optional.empty();
      }
      byte[] stored = db.get(records, memoryReads, key.bytes());
      return Optional.of(
          stored == null ? Optional.empty() : Optional.of(RecordCodec.decode(stored)));
    } catch (RocksDBException e) {
      return Optional.empty(); // Incomplete: needs I/O; any other failure, get reports it
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    return store(List.of(encode(key, record)), true);
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    return putAll(entries, true);
  }

  @Override
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return putAll(entries, false);
  }

  private CompletableFuture<Void> putAll(List<Entry> entries, boolean logged) {
    if (entries.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<EncodedRecord> encoded = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      encoded.add(encode(entry.key(), entry.record()));
    }
    return store(encoded, logged);
  }

  /**
   * Writes {@code records} at once on this thread if nothing can make it wait, else queues them.
   */
  private CompletableFuture<Void> store(List<EncodedRecord> records, boolean logged) {
    if (atOnce != null) {
      Write write = new Write(records, logged);
      try {
        if (atOnce.mayTry(write.bytes) && writeAtOnce(write)) {
          return CompletableFuture.completedFuture(null);
        }
      } catch (StorageException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return combiner.submit(records, logged);
  }

  /**
   * Writes {@code write} as one batch on this thread ({@link AtOnceWrites}); false, having written
   * nothing, if that would mean waiting (for a lock another thread holds, or out a write stall).
   *
   * @throws StorageException if RocksDB refused the write for another reason (a full disk)
   */
  private boolean writeAtOnce(Write write) {
    if (!lifecycle.readLock().tryLock()) {
      return false;
    }
    try {
      if (closed) {
        return false; // the queued path reports it
      }
      try (WriteBatch batch = purger.batch(List.of(write));
          ChangeColumn.Stamped logged = changes.log(batch, List.of(write))) {
        if (!atOnce.write(purger, options.atOnceWrites, batch)) {
          return false;
        }
      } catch (RocksDBException e) {
        throw errors.of("put", Write.onlyKey(List.of(write)), e);
      }
      errors.written();
      batchesWritten.increment();
      batchesAtOnce.increment();
      recordsWritten.add(write.records.size());
      return true;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private static EncodedRecord encode(Key key, Record record) {
    return new EncodedRecord(key, RecordCodec.encode(record), record.diesAtMillis());
  }

  /** Writes a group of puts and their changes as one batch (every queued record write). */
  private void write(List<Write> group) {
    guarded(
        "put",
        Write.onlyKey(group),
        () -> {
          try (WriteBatch batch = purger.batch(group);
              ChangeColumn.Stamped logged = changes.log(batch, group)) {
            purger.write(batch);
          }
          errors.written();
          batchesWritten.increment();
          recordsWritten.add(group.stream().mapToInt(w -> w.records.size()).sum());
          return null;
        });
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return new RocksDbCursor(this, db, records, range);
  }

  /** Under the exclusive side of the purge gate, as a purge ({@link Purger}). */
  @Override
  public CompletableFuture<Boolean> drop(Key key, Version version) {
    return submit("drop", key, () -> purger.drop(key, version));
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return submit("purge", null, () -> purger.purge(deadBeforeMillis, limit));
  }

  @Override
  public boolean syncWal() {
    return wal.sync();
  }

  /** The hints this node holds for others, in their own column family. */
  public HintStore hints() {
    return hints;
  }

  @Override
  public ChangeLog changes() {
    return changes.capturing() ? new RocksDbChangeLog(this, changes) : ChangeLog.NONE;
  }

  /** The column family in which the conditional writes' acceptors keep their states. */
  public RocksDbColumn paxos() {
    return new RocksDbColumn(this, handles.get(3), maxQueuedWrites);
  }

  /** The open database, for this package's checkpoints; calls on it go through {@link #guarded}. */
  RocksDB db() {
    return db;
  }

  RocksDbOptions options() {
    return options;
  }

  @Override
  public StorageStats stats() {
    lifecycle.readLock().lock();
    try {
      return RocksDbStats.read(
          closed ? null : db,
          records,
          options,
          batchesWritten.sum(),
          recordsWritten.sum(),
          batchesAtOnce.sum());
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("stats", null, e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      cursors.forEach(RocksDbCursor::release);
      try {
        db.syncWal();
      } catch (RocksDBException e) {
        // Closing anyway: unsynced entries are still in the log the next open replays.
      }
      handles.forEach(ColumnFamilyHandle::close);
      db.close();
      pointReads.close();
      memoryReads.close();
      options.close();
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  /** A RocksDB call that may throw, run under the open-engine guard. */
  @FunctionalInterface
  interface RocksCall<T> {
    T call() throws RocksDBException;
  }

  <T> CompletableFuture<T> submit(String operation, Key key, RocksCall<T> call) {
    try {
      return CompletableFuture.supplyAsync(() -> guarded(operation, key, call), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }
  }

  /** Runs {@code call} unless the engine is closed; RocksDB failures become StorageExceptions. */
  <T> T guarded(String operation, Key key, RocksCall<T> call) {
    lifecycle.readLock().lock();
    try {
      if (closed) {
        throw new StorageException(StorageException.Kind.FAILURE, operation, key, null);
      }
      return call.call();
    } catch (RocksDBException e) {
      throw errors.of(operation, key, e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  void register(RocksDbCursor cursor) {
    cursors.add(cursor);
  }

  void unregister(RocksDbCursor cursor) {
    cursors.remove(cursor);
  }

  /** Releases {@code cursor}'s native resources unless {@link #close} is releasing them. */
  void release(RocksDbCursor cursor) {
    lifecycle.readLock().lock();
    try {
      cursor.release();
    } finally {
      lifecycle.readLock().unlock();
    }
  }
}
