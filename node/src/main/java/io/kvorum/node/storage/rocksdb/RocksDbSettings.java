package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.storage.WalSync;
import java.util.Objects;

/**
 * How the RocksDB engine is tuned.
 *
 * @param sync when the write-ahead log is fsynced: before a put completes, every interval ({@link
 *     RocksDbStorageEngine#syncWal}, called by the node's {@link
 *     io.kvorum.node.storage.WalSyncer}), or when the OS chooses
 * @param blockCacheBytes size of the shared block cache for reads
 * @param writeBufferBytes size of one memtable before it is flushed to disk
 * @param maxDiskBytes refuse writes once data files reach this size; 0 for no limit but the disk
 * @param maxQueuedWrites puts that may wait to be written; beyond that they fail at once as
 *     overloaded
 * @param writesAtOnce a small put that RocksDB can take without waiting is written on the thread
 *     that asks for it, not handed to the engine's executor ({@link AtOnceWrites}); never when
 *     every write is synced
 * @param quietBackground RocksDB's flush and compaction threads run at the lowest CPU priority
 *     (nice 19). RocksDB's thread pools are the process's: once one engine lowers them, they stay
 *     low for every engine in the process
 * @param statistics RocksDB keeps its statistics (tickers such as {@code WAL_FILE_SYNCED}): off in
 *     a node, where they would cost every write a little; on where a test reads them
 */
public record RocksDbSettings(
    WalSync sync,
    long blockCacheBytes,
    long writeBufferBytes,
    long maxDiskBytes,
    int maxQueuedWrites,
    boolean writesAtOnce,
    boolean quietBackground,
    boolean statistics) {
  /** The queue bound of {@link #defaults()}: as many as the node's storage queue by default. */
  public static final int DEFAULT_MAX_QUEUED_WRITES = 4096;

  public RocksDbSettings {
    Objects.requireNonNull(sync, "sync");
    if (blockCacheBytes <= 0 || writeBufferBytes <= 0 || maxDiskBytes < 0) {
      throw new IllegalArgumentException("RocksDB sizes must be positive");
    }
    if (maxQueuedWrites < 1) {
      throw new IllegalArgumentException("maxQueuedWrites must be positive: " + maxQueuedWrites);
    }
  }

  /**
   * Settings whose background threads keep the process's priority, without statistics; {@code
   * syncWrites} syncs every write, else the log is left to the OS.
   */
  public RocksDbSettings(
      boolean syncWrites,
      long blockCacheBytes,
      long writeBufferBytes,
      long maxDiskBytes,
      int maxQueuedWrites,
      boolean writesAtOnce) {
    this(
        WalSync.everyWrite(syncWrites),
        blockCacheBytes,
        writeBufferBytes,
        maxDiskBytes,
        maxQueuedWrites,
        writesAtOnce,
        false,
        false);
  }

  /** Settings whose small puts are written at once when they can be. */
  public RocksDbSettings(
      boolean syncWrites,
      long blockCacheBytes,
      long writeBufferBytes,
      long maxDiskBytes,
      int maxQueuedWrites) {
    this(syncWrites, blockCacheBytes, writeBufferBytes, maxDiskBytes, maxQueuedWrites, true);
  }

  /** Settings with the default write queue. */
  public RocksDbSettings(
      boolean syncWrites, long blockCacheBytes, long writeBufferBytes, long maxDiskBytes) {
    this(syncWrites, blockCacheBytes, writeBufferBytes, maxDiskBytes, DEFAULT_MAX_QUEUED_WRITES);
  }

  public static RocksDbSettings defaults() {
    return new RocksDbSettings(false, 128L << 20, 64L << 20, 0);
  }

  /** These settings with {@code sync}. */
  public RocksDbSettings withSync(WalSync sync) {
    return new RocksDbSettings(
        sync,
        blockCacheBytes,
        writeBufferBytes,
        maxDiskBytes,
        maxQueuedWrites,
        writesAtOnce,
        quietBackground,
        statistics);
  }

  /** These settings with RocksDB's statistics kept. */
  public RocksDbSettings withStatistics() {
    return new RocksDbSettings(
        sync,
        blockCacheBytes,
        writeBufferBytes,
        maxDiskBytes,
        maxQueuedWrites,
        writesAtOnce,
        quietBackground,
        true);
  }
}
