package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.storage.StorageStats;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** An engine's {@link StorageStats}, read from RocksDB's properties and the engine's counters. */
final class RocksDbStats {
  private RocksDbStats() {}

  /**
   * The stats of {@code db}, or of a closed engine (only its counters) when {@code db} is null.
   *
   * @param records the records' column family
   */
  static StorageStats read(
      RocksDB db,
      ColumnFamilyHandle records,
      RocksDbOptions options,
      long batches,
      long recordsWritten,
      long batchesAtOnce)
      throws RocksDBException {
    if (db == null) {
      return new StorageStats(0, 0, 0, 0, batches, recordsWritten, batchesAtOnce, 0, false);
    }
    return new StorageStats(
        db.getLongProperty(records, "rocksdb.estimate-num-keys"),
        db.getAggregatedLongProperty("rocksdb.live-sst-files-size"),
        db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables")
            + options.blockCache.getUsage(),
        db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"),
        batches,
        recordsWritten,
        batchesAtOnce,
        db.getLongProperty("rocksdb.actual-delayed-write-rate"),
        db.getLongProperty("rocksdb.is-write-stopped") != 0);
  }
}
