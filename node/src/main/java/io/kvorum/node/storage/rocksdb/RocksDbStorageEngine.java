package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.LocalStorage;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.AbstractSlice;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.SstFileManager;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link StorageEngine} on RocksDB. Records live in the default column family under their raw key,
 * so RocksDB's byte-wise comparator gives the key order and scans stream straight from iterators. A
 * second column family, {@code deaths}, indexes tombstones and expiring values by the time they
 * die, so {@link #purge} visits only records that may be due instead of the whole key space.
 *
 * <p>All RocksDB calls run on the executor given at open. A put reads the stored version and writes
 * under a per-key lock stripe, which makes last-writer-wins atomic per key. The write-ahead log is
 * always on, so a completed put survives a crash of the process; with {@code syncWrites} it is
 * fsynced first and survives a crash of the machine.
 */
public final class RocksDbStorageEngine implements StorageEngine {
  private static final String DEATHS = "deaths";
  private static final String HINTS = "hints";
  private static final int STRIPES = 1024;

  static {
    RocksDB.loadLibrary();
  }

  private final Executor executor;
  private final List<RocksObject> resources;
  private final RocksDB db;
  private final ColumnFamilyHandle records;
  private final ColumnFamilyHandle deaths;
  private final RocksDbHintStore hints;
  private final WriteOptions writeOptions;
  private final ReadOptions pointReads;
  private final LRUCache blockCache;
  private final Lock[] stripes = new Lock[STRIPES];
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final Set<Cursor> cursors = ConcurrentHashMap.newKeySet();
  private boolean closed;

  private RocksDbStorageEngine(
      Executor executor,
      List<RocksObject> resources,
      RocksDB db,
      List<ColumnFamilyHandle> handles,
      WriteOptions writeOptions,
      LRUCache blockCache) {
    this.executor = executor;
    this.resources = resources;
    this.db = db;
    this.records = handles.get(0);
    this.deaths = handles.get(1);
    this.writeOptions = writeOptions;
    this.pointReads = new ReadOptions();
    this.blockCache = blockCache;
    resources.add(pointReads);
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.hints = new RocksDbHintStore(this, db, handles.get(2));
  }

  /**
   * Opens (creating if needed) the database in {@code directory}.
   *
   * @param executor runs every RocksDB call; should be bounded and reject when full
   * @throws StorageException if the database cannot be opened (in use by another process,
   *     unreadable, corrupt)
   */
  public static RocksDbStorageEngine open(
      Path directory, RocksDbSettings settings, Executor executor) {
    List<RocksObject> resources = new ArrayList<>();
    try {
      LRUCache cache = track(resources, new LRUCache(settings.blockCacheBytes()));
      SstFileManager files = track(resources, new SstFileManager(Env.getDefault()));
      files.setMaxAllowedSpaceUsage(settings.maxDiskBytes());
      DBOptions dbOptions =
          track(resources, new DBOptions())
              .setCreateIfMissing(true)
              .setCreateMissingColumnFamilies(true)
              .setSstFileManager(files)
              .setMaxBackgroundJobs(Math.max(2, Runtime.getRuntime().availableProcessors()))
              .setBytesPerSync(1 << 20)
              .setKeepLogFileNum(5)
              .setMaxLogFileSize(16 << 20);
      ColumnFamilyOptions recordOptions =
          track(resources, new ColumnFamilyOptions())
              .setWriteBufferSize(settings.writeBufferBytes())
              .setCompressionType(CompressionType.LZ4_COMPRESSION)
              .setLevelCompactionDynamicLevelBytes(true)
              .setTableFormatConfig(
                  new BlockBasedTableConfig()
                      .setBlockCache(cache)
                      .setBlockSize(16 << 10)
                      .setFilterPolicy(track(resources, new BloomFilter(10)))
                      .setCacheIndexAndFilterBlocks(true)
                      .setPinL0FilterAndIndexBlocksInCache(true));
      ColumnFamilyOptions deathOptions =
          track(resources, new ColumnFamilyOptions())
              .setWriteBufferSize(8 << 20)
              .setCompressionType(CompressionType.LZ4_COMPRESSION);
      WriteOptions writeOptions =
          track(resources, new WriteOptions()).setSync(settings.syncWrites());
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db =
          RocksDB.open(
              dbOptions,
              directory.toString(),
              List.of(
                  new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, recordOptions),
                  new ColumnFamilyDescriptor(bytes(DEATHS), deathOptions),
                  new ColumnFamilyDescriptor(bytes(HINTS), deathOptions)),
              handles);
      // Handles and the database close before the options they were opened with.
      List<RocksObject> owned = new ArrayList<>(handles);
      owned.add(db);
      owned.addAll(resources.reversed());
      return new RocksDbStorageEngine(executor, owned, db, handles, writeOptions, cache);
    } catch (RocksDBException e) {
      resources.reversed().forEach(RocksObject::close);
      throw failure("open " + directory, null, e);
    }
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return submit(
        "get",
        key,
        () -> {
          byte[] stored = db.get(records, pointReads, key.bytes());
          return Optional.ofNullable(stored).map(RecordCodec::decode);
        });
  }

  @Override
  public CompletableFuture<Boolean> put(Key key, Record record) {
    return submit(
        "put",
        key,
        () -> {
          Lock stripe = stripes[Math.floorMod(key.hashCode(), STRIPES)];
          stripe.lock();
          try {
            if (!supersedesStored(key, record)) {
              return false;
            }
            try (WriteBatch batch = new WriteBatch()) {
              batch.put(records, key.bytes(), RecordCodec.encode(record));
              if (record.diesAtMillis() != Long.MAX_VALUE) {
                batch.put(deaths, deathKey(record.diesAtMillis(), key), versionBytes(record));
              }
              db.write(writeOptions, batch);
            }
            return true;
          } finally {
            stripe.unlock();
          }
        });
  }

  /** Reads just the stored header unless versions tie, which needs the whole record to decide. */
  private boolean supersedesStored(Key key, Record record) throws RocksDBException {
    byte[] header = new byte[RecordCodec.MAX_HEADER];
    int size = db.get(records, pointReads, key.bytes(), header);
    if (size == RocksDB.NOT_FOUND) {
      return true;
    }
    int order = record.version().compareTo(RecordCodec.version(header));
    if (order != 0) {
      return order > 0;
    }
    byte[] stored = db.get(records, pointReads, key.bytes());
    return stored == null || record.supersedes(RecordCodec.decode(stored));
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return new Cursor(range);
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return submit(
        "purge",
        null,
        () -> {
          int examined = 0;
          int removed = 0;
          try (Slice upper = new Slice(deathKeyPrefix(deadBeforeMillis));
              ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
              RocksIterator it = db.newIterator(deaths, options)) {
            for (it.seekToFirst(); it.isValid() && examined < limit; it.next()) {
              examined++;
              byte[] deathKey = it.key();
              Key key = Key.of(Arrays.copyOfRange(deathKey, Long.BYTES, deathKey.length));
              if (purgeIfUnchanged(
                  key, new Version(ByteBuffer.wrap(it.value()).getLong()), deathKey)) {
                removed++;
              }
            }
            it.status();
          }
          return new PurgeResult(examined, removed);
        });
  }

  private boolean purgeIfUnchanged(Key key, Version version, byte[] deathKey)
      throws RocksDBException {
    Lock stripe = stripes[Math.floorMod(key.hashCode(), STRIPES)];
    stripe.lock();
    try (WriteBatch batch = new WriteBatch()) {
      byte[] header = new byte[RecordCodec.MAX_HEADER];
      int size = db.get(records, pointReads, key.bytes(), header);
      boolean unchanged = size != RocksDB.NOT_FOUND && RecordCodec.version(header).equals(version);
      if (unchanged) {
        batch.delete(records, key.bytes());
      }
      batch.delete(deaths, deathKey);
      db.write(writeOptions, batch);
      return unchanged;
    } finally {
      stripe.unlock();
    }
  }

  /** The hints kept in this database, beside the records. */
  public HintStore hints() {
    return hints;
  }

  /** This engine and its hints, as a node uses them. */
  public LocalStorage asLocalStorage() {
    return new LocalStorage(this, hints);
  }

  WriteOptions writeOptions() {
    return writeOptions;
  }

  @Override
  public StorageStats stats() {
    lifecycle.readLock().lock();
    try {
      if (closed) {
        return new StorageStats(0, 0, 0, 0);
      }
      return new StorageStats(
          db.getLongProperty(records, "rocksdb.estimate-num-keys"),
          db.getAggregatedLongProperty("rocksdb.live-sst-files-size"),
          db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables") + blockCache.getUsage(),
          db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"));
    } catch (RocksDBException e) {
      throw failure("stats", null, e);
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
      cursors.forEach(Cursor::release);
      try {
        db.syncWal();
      } catch (RocksDBException e) {
        // Closing anyway: unsynced entries are still in the log the next open replays.
      }
      resources.forEach(RocksObject::close);
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

  private <T> T guarded(String operation, Key key, RocksCall<T> call) {
    lifecycle.readLock().lock();
    try {
      if (closed) {
        throw new StorageException(StorageException.Kind.FAILURE, operation, key, null);
      }
      return call.call();
    } catch (RocksDBException e) {
      throw failure(operation, key, e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  static StorageException failure(String operation, Key key, RocksDBException e) {
    Status status = e.getStatus();
    boolean noSpace =
        (status != null && status.getSubCode() == Status.SubCode.NoSpace)
            || String.valueOf(e.getMessage()).contains("No space left")
            || String.valueOf(e.getMessage()).contains("Max allowed space");
    return new StorageException(
        noSpace ? StorageException.Kind.NO_SPACE : StorageException.Kind.FAILURE,
        operation,
        key,
        e);
  }

  private static byte[] deathKeyPrefix(long atMillis) {
    return ByteBuffer.allocate(Long.BYTES).putLong(atMillis).array();
  }

  private static byte[] deathKey(long atMillis, Key key) {
    return ByteBuffer.allocate(Long.BYTES + key.size()).putLong(atMillis).put(key.bytes()).array();
  }

  private static byte[] versionBytes(Record record) {
    return ByteBuffer.allocate(Long.BYTES).putLong(record.version().value()).array();
  }

  private static byte[] bytes(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  private static <T extends RocksObject> T track(List<RocksObject> resources, T resource) {
    resources.add(resource);
    return resource;
  }

  /** Iterates a snapshot; RocksDB objects are touched only under the cursor's monitor. */
  private final class Cursor implements ScanCursor {
    private final KeyRange range;
    private Snapshot snapshot;
    private AbstractSlice<?> upperBound;
    private ReadOptions options;
    private RocksIterator iterator;
    private boolean released;

    Cursor(KeyRange range) {
      this.range = range;
      this.released = range.isEmpty();
      cursors.add(this);
    }

    @Override
    public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
      return submit("scan", range.start(), () -> batch(maxEntries, maxBytes));
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
        byte[] value = iterator.value();
        Entry entry = new Entry(Key.of(iterator.key()), RecordCodec.decode(value));
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
      lifecycle.readLock().lock();
      try {
        release();
      } finally {
        lifecycle.readLock().unlock();
      }
    }

    synchronized void release() {
      if (released && iterator == null) {
        cursors.remove(this);
        return;
      }
      released = true;
      cursors.remove(this);
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
}
