package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.StorageException;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/** RocksDB's failures as the {@link StorageException} the rest of the node reads. */
final class RocksDbFailures {
  private RocksDbFailures() {}

  /**
   * {@code e} wrapped with the operation and key it failed; a full disk, or a database past its
   * allowed space, is {@link StorageException.Kind#NO_SPACE}, anything else a failure.
   */
  static StorageException of(String operation, Key key, RocksDBException e) {
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

  /** Whether RocksDB refused {@code e}'s call because of an error it met before (its writer's). */
  static boolean afterAnEarlierError(RocksDBException e) {
    return String.valueOf(e.getMessage()).contains("previous error");
  }
}
