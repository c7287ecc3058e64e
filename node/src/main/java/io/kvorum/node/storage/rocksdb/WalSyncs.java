package io.kvorum.node.storage.rocksdb;

import org.rocksdb.RocksDB;

/**
 * The engine's write-ahead-log syncs of {@code --sync-writes INTERVAL}: a sync only when something
 * was written since the last one, so an idle node does not fsync ten times a second.
 *
 * <p>A sync is a synced write of nothing ({@link Purger#syncLog}), not RocksDB's {@code SyncWAL}.
 * Once a write to the log has failed for space, the log's writer refuses everything after it
 * ("Writer has previous error"), and {@code SyncWAL} reports that as a fatal background error
 * (db_impl.cc, {@code WALIOStatusCheck}; error_handler.cc: an I/O error of a log write with
 * paranoid checks), from which RocksDB never resumes: the node would answer 507 until restarted,
 * however much space came back. A write goes through RocksDB's write thread instead, after the
 * failed write has set its recoverable "no space" error, and is refused with that error.
 */
final class WalSyncs {
  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final Purger purger;

  /** The last sequence number a sync made durable; read and written by the syncing thread alone. */
  private long syncedSequence = -1;

  WalSyncs(RocksDbStorageEngine engine, RocksDB db, Purger purger) {
    this.engine = engine;
    this.db = db;
    this.purger = purger;
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
          purger.syncLog();
          syncedSequence = sequence;
          return true;
        });
  }
}
