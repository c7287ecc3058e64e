package io.kvorum.node.storage.rocksdb;

import org.rocksdb.RocksDB;

/**
 * The engine's write-ahead-log syncs of {@code --sync-writes INTERVAL}: a sync only when something
 * was written since the last one, so an idle node does not fsync ten times a second.
 */
final class WalSyncs {
  private final RocksDbStorageEngine engine;
  private final RocksDB db;

  /** The last sequence number a sync made durable; read and written by the syncing thread alone. */
  private long syncedSequence = -1;

  WalSyncs(RocksDbStorageEngine engine, RocksDB db) {
    this.engine = engine;
    this.db = db;
  }

  /** Syncs the log if a write came since the last sync; whether it synced. */
  boolean sync() {
    return engine.guarded(
        "sync the write-ahead log",
        null,
        () -> {
          // Read before the sync: a write that lands meanwhile is synced too, and synced again next
          // time, which costs one fsync and loses nothing.
          long sequence = db.getLatestSequenceNumber();
          if (sequence == syncedSequence) {
            return false;
          }
          db.syncWal();
          syncedSequence = sequence;
          return true;
        });
  }
}
