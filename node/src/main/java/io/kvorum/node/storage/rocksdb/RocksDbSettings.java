package io.kvorum.node.storage.rocksdb;

/**
 * How the RocksDB engine is tuned.
 *
 * @param syncWrites fsync the write-ahead log before a put completes (survives power loss, slower)
 * @param blockCacheBytes size of the shared block cache for reads
 * @param writeBufferBytes size of one memtable before it is flushed to disk
 * @param maxDiskBytes refuse writes once data files reach this size; 0 for no limit but the disk
 */
public record RocksDbSettings(
    boolean syncWrites, long blockCacheBytes, long writeBufferBytes, long maxDiskBytes) {
  public RocksDbSettings {
    if (blockCacheBytes <= 0 || writeBufferBytes <= 0 || maxDiskBytes < 0) {
      throw new IllegalArgumentException("RocksDB sizes must be positive");
    }
  }

  public static RocksDbSettings defaults() {
    return new RocksDbSettings(false, 128L << 20, 64L << 20, 0);
  }
}
