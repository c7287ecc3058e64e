package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.StorageException;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * The writes after one refused for space fail with RocksDB's "Writer has previous error": a full
 * disk still (507), until a write succeeds (found failing FaultScenariosIT's full-disk scenario
 * with a 500).
 */
class WriterErrorsTest {
  private static final RocksDBException NO_SPACE =
      new RocksDBException(
          "IO error: No space left on device",
          new Status(Status.Code.IOError, Status.SubCode.NoSpace, "No space left on device"));
  private static final RocksDBException PREVIOUS =
      new RocksDBException(
          "IO error: Writer has previous error",
          new Status(Status.Code.IOError, Status.SubCode.None, "Writer has previous error"));

  private final WriterErrors errors = new WriterErrors();

  @Test
  void aWriterErrorAfterAFullDiskIsTheFullDiskUntilAWriteSucceeds() {
    assertThat(errors.of("put", null, NO_SPACE).kind()).isEqualTo(StorageException.Kind.NO_SPACE);
    assertThat(errors.of("put", null, PREVIOUS).kind()).isEqualTo(StorageException.Kind.NO_SPACE);

    errors.written();

    assertThat(errors.of("put", null, PREVIOUS).kind()).isEqualTo(StorageException.Kind.FAILURE);
  }

  @Test
  void aWriterErrorWithNoFullDiskBeforeIsAFailure() {
    assertThat(errors.of("put", null, PREVIOUS).kind()).isEqualTo(StorageException.Kind.FAILURE);
  }
}
