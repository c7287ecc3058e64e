package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.StorageException;
import org.rocksdb.RocksDBException;

/**
 * An engine's RocksDB failures as the node reads them ({@link RocksDbFailures}), with what the
 * writer's state adds: a write refused for space leaves RocksDB's writer in error, and the writes
 * after it fail with "Writer has previous error" until RocksDB recovers. Those are still the full
 * disk ({@code 507}), not a failure of the engine ({@code 500}), until a write succeeds again.
 */
final class WriterErrors {
  private volatile boolean failedForSpace;

  /** {@code e}, from a call of {@code operation} on {@code key}, as the node reads it. */
  StorageException of(String operation, Key key, RocksDBException e) {
    StorageException failure = RocksDbFailures.of(operation, key, e);
    if (failure.kind() == StorageException.Kind.NO_SPACE) {
      failedForSpace = true;
      return failure;
    }
    return failedForSpace && RocksDbFailures.afterAnEarlierError(e)
        ? new StorageException(StorageException.Kind.NO_SPACE, operation, key, e)
        : failure;
  }

  /** Whether a write was refused for space since the last one taken. */
  boolean failedForSpace() {
    return failedForSpace;
  }

  /** A write succeeded: the writer is well again. */
  void written() {
    failedForSpace = false;
  }
}
