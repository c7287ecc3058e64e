package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import java.util.concurrent.CompletableFuture;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * A column family of a node's RocksDB in which another room keeps its own state beside the records
 * (the conditional writes' acceptors, {@code paxos}), so that one write-ahead log, one lifecycle
 * and one disk limit cover both. Its calls run on the engine's storage executor, are refused once
 * the engine is closed, and report RocksDB's failures as the engine does (a full disk as NO_SPACE).
 */
public final class RocksDbColumn {
  /** A call on the database and this column family. */
  @FunctionalInterface
  public interface Call<T> {
    T call(RocksDB db, ColumnFamilyHandle column) throws RocksDBException;
  }

  private final RocksDbStorageEngine engine;
  private final ColumnFamilyHandle column;
  private final int maxQueued;

  RocksDbColumn(RocksDbStorageEngine engine, ColumnFamilyHandle column, int maxQueued) {
    this.engine = engine;
    this.column = column;
    this.maxQueued = maxQueued;
  }

  /**
   * How many writes may wait for a group commit ({@code --storage-queue}), as the records' puts.
   */
  public int maxQueued() {
    return maxQueued;
  }

  /**
   * Runs {@code call} on the storage executor; fails with a {@link
   * io.kvorum.node.core.StorageException} naming {@code operation} and {@code key} (may be null) if
   * RocksDB refused it or the engine is closed, or an {@link
   * io.kvorum.node.core.OverloadedException} if the executor's queue is full.
   */
  public <T> CompletableFuture<T> submit(String operation, Key key, Call<T> call) {
    return engine.submit(operation, key, () -> call.call(engine.db(), column));
  }

  /**
   * Runs {@code call} on the caller's thread (while the room opens), failing as {@link #submit}.
   */
  public <T> T now(String operation, Key key, Call<T> call) {
    return engine.guarded(operation, key, () -> call.call(engine.db(), column));
  }

  /**
   * Writes that sync the write-ahead log before they complete, whatever {@code --sync-writes} says.
   */
  public WriteOptions syncedWrites() {
    return engine.options().syncedWrites;
  }

  /**
   * Writes that do not sync the write-ahead log: durable once it is next synced, by a synced write
   * (any, of any column family: the log is one) or a sync of it.
   */
  public WriteOptions unsyncedWrites() {
    return engine.options().unsyncedWrites;
  }

  /** Writes as the records' are written ({@code --sync-writes}). */
  public WriteOptions writes() {
    return engine.options().writes;
  }
}
