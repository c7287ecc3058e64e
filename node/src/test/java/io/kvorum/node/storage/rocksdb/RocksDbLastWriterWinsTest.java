package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.storage.LastWriterWinsContract;
import io.kvorum.node.storage.StorageEngine;
import java.nio.file.Path;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

class RocksDbLastWriterWinsTest extends LastWriterWinsContract {
  @TempDir Path dir;

  private ThreadPoolExecutor executor;

  @Override
  protected StorageEngine newEngine() {
    executor = StorageThreads.bounded(4, 10_000);
    return RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor);
  }

  @AfterEach
  void stopExecutor() throws InterruptedException {
    assertThat(StorageThreads.stop(executor)).isTrue();
  }
}
