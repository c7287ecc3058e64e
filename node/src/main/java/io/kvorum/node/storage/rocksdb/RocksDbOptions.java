package io.kvorum.node.storage.rocksdb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.Priority;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksObject;
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;
import org.rocksdb.WriteOptions;

/**
 * How a node's RocksDB is set up, and the native option objects that must outlive it. The column
 * families: records (the default family: key → {@link RecordCodec} form, merged by {@code max}),
 * {@code deaths} (the purge index), {@code hints}, {@code paxos} and {@code changes} (the change
 * log of feeds, {@link ChangeColumn}). Each setting that departs from RocksDB's defaults says why;
 * docs/decisions/rocksdb-settings.md lists them for A/B runs.
 */
final class RocksDbOptions implements AutoCloseable {
  static final String DEATHS = "deaths";
  static final String HINTS = "hints";
  static final String PAXOS = "paxos";
  static final String CHANGES = "changes";

  /** RocksDB's built-in merge operator keeping the byte-wise largest operand (max.cc). */
  static final String MAX_MERGE = "max";

  private static final long MIB = 1 << 20;

  /**
   * The free space RocksDB waits for before it resumes after a full disk. At open it reserves the
   * largest {@code write_buffer_size} of any family (db_impl_open.cc, ReserveDiskBuffer) and clears
   * a hard "no space" error only once that much is free (sst_file_manager_impl.cc, ClearError,
   * every 5 s). A volume holding data may never have a whole memtable free again, so the families
   * open with memtables of at most this size, and take their own size right after ({@link #open}).
   * Recovery flushes the memtables: with less free space than they hold it fails, and is tried
   * again 5 s later (docs/decisions/writes-resume-with-a-few-mib-free.md).
   */
  static final long RESUME_RESERVE = 4 * MIB;

  private final List<RocksObject> owned = new ArrayList<>();
  final DBOptions db;
  final WriteOptions writes;

  /**
   * Writes made on the caller's thread ({@link AtOnceWrites}): never synced, and failing with
   * Incomplete instead of waiting out a write stall.
   */
  final WriteOptions atOnceWrites;

  /** Writes that must survive a crash of the machine before they are answered: Paxos states. */
  final WriteOptions syncedWrites;

  /** Writes made durable by a later synced write or sync of the log, not by themselves. */
  final WriteOptions unsyncedWrites;

  final LRUCache blockCache;
  final List<ColumnFamilyDescriptor> families;

  /** Each family's memtable size once the database is open, in {@link #families}' order. */
  private final List<Long> writeBufferSizes;

  /** Tracks the data files and refuses writes beyond {@link #maxDiskBytes} (0: no limit). */
  final SstFileManager files;

  final long maxDiskBytes;

  /** RocksDB's statistics when the settings ask for them, else null. */
  final Statistics statistics;

  /**
   * @throws RocksDBException if an option object cannot be made (then none is left open)
   */
  RocksDbOptions(RocksDbSettings settings) throws RocksDBException {
    try {
      blockCache = own(new LRUCache(settings.blockCacheBytes()));
      db = own(new DBOptions());
      writes = own(new WriteOptions()).setSync(settings.sync().everyWrite());
      atOnceWrites = own(new WriteOptions()).setSync(false).setNoSlowdown(true);
      syncedWrites = own(new WriteOptions()).setSync(true);
      unsyncedWrites = own(new WriteOptions()).setSync(false);
      writeBufferSizes = List.of(settings.writeBufferBytes(), 8 * MIB, 8 * MIB, 8 * MIB, 16 * MIB);
      families = families(settings);
      maxDiskBytes = settings.maxDiskBytes();
      files = own(new SstFileManager(Env.getDefault()));
      configure(db, files, settings);
      statistics = settings.statistics() ? own(new Statistics()) : null;
      if (statistics != null) {
        db.setStatistics(statistics);
      }
      if (settings.quietBackground()) {
        // Flushes and compactions come in bursts that take a core while they last; at a fair share
        // they delay every request of that moment (p99 45 -> 12 ms at 6,000 writes/s, the median of
        // eight A/B holds; bench/history/2026-11-27-tail). At nice 19 they run on what the event
        // loops leave.
        // Off by default: a write waiting for a flush waits longer
        // (docs/decisions/quiet-background-work-off-by-default.md).
        Env.getDefault()
            .lowerThreadPoolCPUPriority(Priority.HIGH)
            .lowerThreadPoolCPUPriority(Priority.LOW);
      }
    } catch (RocksDBException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private static void configure(DBOptions db, SstFileManager files, RocksDbSettings settings) {
    files.setMaxAllowedSpaceUsage(settings.maxDiskBytes());
    db.setCreateIfMissing(true)
        .setCreateMissingColumnFamilies(true)
        .setSstFileManager(files)
        // One flush and one compaction thread on two cores: more would take CPU from requests.
        // Subcompactions stay at 1 for the same reason.
        .setMaxBackgroundJobs(Math.max(2, Runtime.getRuntime().availableProcessors()))
        // Write flushed and compacted files, and the WAL, back to disk in 1 MiB steps instead
        // of leaving the kernel to write back a burst that stalls the next WAL write(2).
        .setBytesPerSync(MIB)
        .setWalBytesPerSync(MIB)
        // Obsolete files are deleted by a background job, not by the storage thread that
        // released the last iterator or snapshot pinning them.
        .setAvoidUnnecessaryBlockingIO(true)
        .setKeepLogFileNum(5)
        .setMaxLogFileSize(16 * MIB);
  }

  private List<ColumnFamilyDescriptor> families(RocksDbSettings settings) {
    ColumnFamilyOptions small =
        atOpen(own(new ColumnFamilyOptions()), writeBufferSizes.get(1))
            .setCompressionType(CompressionType.LZ4_COMPRESSION);
    return List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, records(settings)),
        new ColumnFamilyDescriptor(bytes(DEATHS), small),
        new ColumnFamilyDescriptor(bytes(HINTS), small),
        new ColumnFamilyDescriptor(bytes(PAXOS), small),
        new ColumnFamilyDescriptor(bytes(CHANGES), small));
  }

  private ColumnFamilyOptions records(RocksDbSettings settings) {
    return atOpen(own(new ColumnFamilyOptions()), settings.writeBufferBytes())
        .setMergeOperatorName(MAX_MERGE)
        // Every get of a blindly written key reads every memtable (a merge operand never ends
        // the search as a put would): a whole-key bloom filter skips those without the key.
        .setMemtablePrefixBloomSizeRatio(0.02)
        .setMemtableWholeKeyFiltering(true)
        // Flushes stay uncompressed (cheap, and their files are compacted away soon); the levels
        // below, which hold nearly all the data, use LZ4.
        .setCompressionPerLevel(
            List.of(CompressionType.NO_COMPRESSION, CompressionType.LZ4_COMPRESSION))
        .setCompressionType(CompressionType.LZ4_COMPRESSION)
        .setLevelCompactionDynamicLevelBytes(true)
        .setTableFormatConfig(
            new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setBlockSize(16 << 10)
                .setFilterPolicy(own(new BloomFilter(10)))
                .setCacheIndexAndFilterBlocks(true)
                .setPinL0FilterAndIndexBlocksInCache(true));
  }

  /**
   * {@code family} with a memtable of at most {@link #RESUME_RESERVE} while the database opens, and
   * the arena blocks RocksDB derives from {@code writeBufferBytes} (an eighth, at most 1 MiB).
   */
  private static ColumnFamilyOptions atOpen(ColumnFamilyOptions family, long writeBufferBytes) {
    return family
        .setWriteBufferSize(Math.min(writeBufferBytes, RESUME_RESERVE))
        .setArenaBlockSize(Math.min(MIB, writeBufferBytes / 8));
  }

  /**
   * Opens the database in {@code directory} with these options, its families' handles added to
   * {@code handles}, and gives each family its memtable size (opened with at most {@link
   * #RESUME_RESERVE}).
   *
   * @throws RocksDBException if it cannot be opened (then nothing is left open but these options)
   */
  RocksDB open(String directory, List<ColumnFamilyHandle> handles) throws RocksDBException {
    RocksDB db = RocksDB.open(this.db, directory, families, handles);
    try {
      for (int i = 0; i < handles.size(); i++) {
        db.setOptions(
            handles.get(i),
            MutableColumnFamilyOptions.builder()
                .setWriteBufferSize(writeBufferSizes.get(i))
                .build());
      }
      return db;
    } catch (RocksDBException | RuntimeException e) {
      handles.forEach(ColumnFamilyHandle::close);
      handles.clear();
      db.close();
      throw e;
    }
  }

  private <T extends RocksObject> T own(T resource) {
    owned.add(resource);
    return resource;
  }

  static byte[] bytes(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  /** Closes the options, newest first; only once every database opened with them is closed. */
  @Override
  public void close() {
    owned.reversed().forEach(RocksObject::close);
  }
}
