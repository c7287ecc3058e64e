package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.storage.WalSyncer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.TickerType;

/**
 * {@code --sync-writes INTERVAL} (issue 39): the write-ahead log is synced once every interval in
 * which something was written, as RocksDB's own counter of WAL syncs ({@code WAL_FILE_SYNCED})
 * shows, and never by a put itself; an idle interval costs no fsync.
 */
class RocksDbWalSyncTest {
  @TempDir Path dir;
  private ThreadPoolExecutor storage;
  private RocksDbStorageEngine engine;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void open() {
    storage = StorageThreads.bounded(2, 1_000);
    RocksDbSettings settings =
        RocksDbSettings.defaults().withSync(WalSync.DEFAULT).withStatistics();
    engine = RocksDbStorageEngine.open(dir, settings, storage);
  }

  @AfterEach
  void close() throws InterruptedException {
    engine.close();
    assertThat(StorageThreads.stop(storage)).isTrue();
  }

  @Test
  void everyIntervalWithWritesSyncsTheLogOnceAndAnIdleIntervalNotAtAll() {
    CapturingScheduler thread = new CapturingScheduler();
    WalSyncer.start(engine::syncWal, Duration.ofMillis(100), thread, registry);
    assertThat(thread.periodNanos).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(thread.fixedRate).as("due one interval after the last sync started").isTrue();
    long before = walSyncs();

    for (int interval = 0; interval < 10; interval++) {
      put("key-" + interval);
      put("other-" + interval);
      assertThat(walSyncs()).as("a put alone never syncs").isEqualTo(before + interval);
      thread.task.run();
      assertThat(walSyncs()).isEqualTo(before + interval + 1);
    }
    thread.task.run();
    thread.task.run();

    assertThat(walSyncs()).as("intervals without writes").isEqualTo(before + 10);
    assertThat(registry.get("kvorum.storage.wal.sync").timer().count()).isEqualTo(10);
  }

  @Test
  void hintsShareTheLogAndItsSync() {
    long before = walSyncs();
    engine
        .hints()
        .add(NodeId.of("peer"), key("hinted"), record("v"), System.currentTimeMillis())
        .join();

    assertThat(engine.syncWal()).isTrue();
    assertThat(walSyncs()).isEqualTo(before + 1);
    assertThat(engine.syncWal()).isFalse();
  }

  @Test
  void theSyncerGoesOnWhileWritesArriveFromOtherThreads() throws Exception {
    ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1);
    try {
      WalSyncer.start(engine::syncWal, Duration.ofMillis(5), thread, registry);
      for (int i = 0; i < 2_000; i++) {
        engine.put(key("k" + i), record("v" + i)).get(10, TimeUnit.SECONDS);
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> registry.get("kvorum.storage.wal.sync").timer().count() > 0);
    } finally {
      thread.shutdown();
      assertThat(thread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(walSyncs()).isPositive();
  }

  private long walSyncs() {
    return engine.options().statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
  }

  private void put(String key) {
    engine.put(key(key), record(key)).join();
  }

  private static Key key(String key) {
    return Key.of(key.getBytes(StandardCharsets.UTF_8));
  }

  private static Record record(String value) {
    return Record.value(
        Version.of(System.currentTimeMillis(), 0), value.getBytes(StandardCharsets.UTF_8));
  }

  /** Keeps the periodic task for the test to run by hand, each run one interval. */
  private static final class CapturingScheduler extends ScheduledThreadPoolExecutor {
    Runnable task;
    long periodNanos;
    boolean fixedRate;

    CapturingScheduler() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      task = command;
      periodNanos = unit.toNanos(period);
      fixedRate = true;
      return null;
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      task = command;
      periodNanos = unit.toNanos(delay);
      return null;
    }
  }
}
