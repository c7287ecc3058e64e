package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.KeyRange;
import io.kvorum.node.storage.ChangeLog;
import java.util.concurrent.CompletableFuture;

/** The {@link ChangeLog} of a {@link RocksDbStorageEngine}: its calls on the storage executor. */
final class RocksDbChangeLog implements ChangeLog {
  private final RocksDbStorageEngine engine;
  private final ChangeColumn column;

  RocksDbChangeLog(RocksDbStorageEngine engine, ChangeColumn column) {
    this.engine = engine;
    this.column = column;
  }

  @Override
  public CompletableFuture<Page> read(KeyRange range, long after, int limit) {
    return engine.submit("read changes", null, () -> column.read(range, after, limit));
  }

  @Override
  public CompletableFuture<Void> purge(long before) {
    return engine.submit(
        "purge changes",
        null,
        () -> {
          column.purge(before);
          return null;
        });
  }
}
