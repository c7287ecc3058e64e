package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.storage.ChangeBudget;
import io.kvorum.node.storage.ChangeLog;
import java.util.ArrayList;
import java.util.List;
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
  public CompletableFuture<List<Page>> readAll(List<Read> reads) {
    return engine.submit(
        "read changes",
        null,
        () -> {
          ChangeBudget budget = new ChangeBudget();
          List<Page> pages = new ArrayList<>(reads.size());
          for (Read read : reads) {
            pages.add(column.read(read, budget));
          }
          return pages;
        });
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
