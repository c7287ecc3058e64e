package io.kvorum.node.storage.rocksdb;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rocksdb.RocksDB;

/**
 * The engine's write-ahead-log syncs of {@code --sync-writes INTERVAL}: a sync only when something
 * was written since the last one, so an idle node does not fsync ten times a second.
 *
 * <p>Once a write to the log has failed for space, the log's writer refuses everything after it
 * ("Writer has previous error"), and RocksDB's {@code SyncWAL} on that writer reports a fatal
 * background error (db_impl.cc, {@code WALIOStatusCheck}; error_handler.cc: an I/O error of a log
 * write under paranoid checks), from which RocksDB never resumes: the node would answer 507 until
 * restarted, however much space came back. So {@code SyncWAL}, which runs beside the writes, is
 * used only while a write to the log cannot be failing for space: the engine knows of no write
 * refused for space since the last one taken, and the volume has {@link #ROOM} free, which no write
 * fills in the moment between this check and RocksDB's. Otherwise the sync is a synced write of
 * nothing ({@link Purger#syncLog}), which RocksDB's write thread orders after any failed write:
 * once that set its recoverable "no space" error, the synced write is refused with it.
 */
final class WalSyncs {
  /** Free space below which a sync goes through the write thread. */
  static final long ROOM = 64L << 20;

  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final Purger purger;
  private final WriterErrors errors;

  /** The volume of the database, or null if it cannot be known (then every sync is a write). */
  private final FileStore volume;

  /**
   * The last sequence number a sync made durable. Written by the syncing thread and by an ownership
   * sweep's, each after its own sync: a race between the two costs at most one more sync.
   */
  private volatile long syncedSequence = -1;

  WalSyncs(
      RocksDbStorageEngine engine, RocksDB db, Purger purger, WriterErrors errors, Path directory) {
    this.engine = engine;
    this.db = db;
    this.purger = purger;
    this.errors = errors;
    this.volume = volume(directory);
  }

  private static FileStore volume(Path directory) {
    try {
      return Files.getFileStore(directory);
    } catch (IOException e) {
      return null;
    }
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
          if (roomy()) {
            db.syncWal();
          } else {
            purger.syncLog();
          }
          syncedSequence = sequence;
          return true;
        });
  }

  /** Whether no write to the log can be failing for space now. */
  private boolean roomy() {
    if (volume == null || errors.failedForSpace()) {
      return false;
    }
    try {
      return volume.getUsableSpace() >= ROOM;
    } catch (IOException e) {
      return false;
    }
  }
}
