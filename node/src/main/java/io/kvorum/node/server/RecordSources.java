package io.kvorum.node.server;

import io.kvorum.node.storage.RecordSource;
import io.kvorum.node.storage.rocksdb.RocksDbRecordReader;
import java.nio.file.Path;

/** Opens the records of a snapshot or a stopped node's data for reading, on the node's engine. */
public final class RecordSources {
  private RecordSources() {}

  /**
   * The database in {@code from}: {@code from} itself when it holds one (a snapshot, {@code
   * <data-dir>/snapshots/NAME}), else {@code from/db} (a node's data directory); null when neither
   * does.
   */
  public static Path databaseIn(Path from) {
    return RocksDbRecordReader.databaseIn(from);
  }

  /**
   * Opens the database in {@code directory} read-only.
   *
   * @throws io.kvorum.node.core.StorageException if a running node has it open, it holds records of
   *     another format, or it cannot be opened
   */
  public static RecordSource open(Path directory) {
    return RocksDbRecordReader.open(directory);
  }

  /**
   * Refuses a database that a running node has open (its {@code LOCK} file held), before a restore
   * replaces it.
   *
   * @throws io.kvorum.node.core.StorageException if a running node has it open
   */
  public static void refuseIfOpen(Path directory) {
    RocksDbRecordReader.refuseIfLocked(directory);
  }
}
