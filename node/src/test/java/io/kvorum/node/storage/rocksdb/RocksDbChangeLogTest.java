package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.storage.ChangeLogContract;
import io.kvorum.node.storage.StorageEngine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.TransactionLogIterator;
import org.rocksdb.WriteBatch;

/**
 * The change log contract on RocksDB, and what only RocksDB can show: a record and its change are
 * one write-ahead-log entry (one batch), so a crash keeps both or neither; the log survives a
 * reopen and goes on stamping after what it holds; a node that captures nothing logs nothing.
 */
class RocksDbChangeLogTest extends ChangeLogContract {
  @TempDir Path dir;

  private ThreadPoolExecutor executor;

  @Override
  protected StorageEngine newEngine() {
    executor = StorageThreads.bounded(4, 10_000);
    return RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor);
  }

  @AfterEach
  void stopExecutor() throws InterruptedException {
    engine.close();
    assertThat(StorageThreads.stop(executor)).isTrue();
  }

  @Test
  void aRecordAndItsChangeAreWrittenInOneBatch() throws Exception {
    RocksDbStorageEngine rocks = (RocksDbStorageEngine) engine;
    long before = rocks.db().getLatestSequenceNumber();

    putAll(List.of(new Entry(key("a"), value(1, "x")), new Entry(key("b"), value(2, "y"))));
    put(key("c"), value(3, "z"));

    List<Integer> counts = new ArrayList<>();
    try (TransactionLogIterator wal = rocks.db().getUpdatesSince(before + 1)) {
      for (; wal.isValid(); wal.next()) {
        try (WriteBatch batch = wal.getBatch().writeBatch()) {
          counts.add(batch.count());
        }
      }
    }
    // Each batch: a merge per record and a put per change (no deaths: nothing here dies).
    assertThat(counts).containsExactly(4, 2);
  }

  @Test
  void aPurgeWritesNothingWhenNoChangeIsOldEnoughAndDeletesOnlyFromTheOldestChange()
      throws Exception {
    RocksDbStorageEngine rocks = (RocksDbStorageEngine) engine;
    put(key("a"), value(1, "x"));
    long stamp = readAll(KeyRange.from(Key.of(new byte[] {0})), 0).get(0).stamp();
    long sequence = rocks.db().getLatestSequenceNumber();

    await(engine.changes().purge(stamp));

    assertThat(rocks.db().getLatestSequenceNumber())
        .as("no range delete below the oldest change (it would span every later flushed file)")
        .isEqualTo(sequence);
    assertThat(readAll(KeyRange.from(Key.of(new byte[] {0})), 0)).hasSize(1);

    await(engine.changes().purge(stamp + 1));

    assertThat(readAll(KeyRange.from(Key.of(new byte[] {0})), 0)).isEmpty();
    assertThat(await(read(engine.changes(), KeyRange.from(key("a")), 0, 10)).purgedBefore())
        .isEqualTo(stamp + 1);
  }

  @Test
  void theLogSurvivesAReopenAndStampsGoOnAfterIt() {
    put(key("a"), value(1, "x"));
    long first = readAll(KeyRange.from(Key.of(new byte[] {0})), 0).get(0).stamp();
    engine.close();
    engine = RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor);
    put(key("b"), value(2, "x"));

    assertThat(readAll(KeyRange.from(Key.of(new byte[] {0})), 0))
        .extracting(c -> c.key().toString(), c -> c.stamp() > first)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", false),
            org.assertj.core.groups.Tuple.tuple("b", true));
  }

  @Test
  void anEngineOpenedWithoutCaptureLogsNothing() {
    engine.close();
    engine =
        RocksDbStorageEngine.open(
            dir.resolve("off"), RocksDbStorageEngineTest.SMALL, executor, false);
    put(key("a"), value(1, "x"));

    assertThat(engine.changes().captures()).isFalse();
    assertThat(readAll(KeyRange.from(Key.of(new byte[] {0})), 0)).isEmpty();
  }
}
