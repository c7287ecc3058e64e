package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageEngineContract;
import io.kvorum.node.storage.StorageStats;
import io.kvorum.node.storage.WalSync;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RocksDbStorageEngineTest extends StorageEngineContract {
  static final RocksDbSettings SMALL = new RocksDbSettings(false, 8L << 20, 4L << 20, 0);

  /** As {@link #SMALL}, but every put goes through the queue and the storage threads. */
  static final RocksDbSettings QUEUED =
      new RocksDbSettings(false, 8L << 20, 4L << 20, 0, 4096, false);

  @TempDir Path dir;

  private ThreadPoolExecutor executor;

  @Override
  protected StorageEngine newEngine() {
    executor = StorageThreads.bounded(4, 10_000);
    return RocksDbStorageEngine.open(dir, SMALL, executor);
  }

  @AfterEach
  void stopExecutor() throws InterruptedException {
    // Runs before the contract closes the engine, which needs no executor to close.
    assertThat(StorageThreads.stop(executor)).isTrue();
  }

  private RocksDbStorageEngine reopen() {
    engine.close();
    engine = RocksDbStorageEngine.open(dir, SMALL, executor);
    return (RocksDbStorageEngine) engine;
  }

  @Test
  void dataSurvivesCloseAndReopen() {
    Record live = value(1_000, "live");
    Record deleted = tombstone(1_001);
    Record expiring = Record.value(version(1_002), bytes("expiring"), 9_999_999L);
    Key binary = Key.of(new byte[] {0x00, (byte) 0xFF});
    put(key("live"), live);
    put(key("deleted"), value(900, "before the delete"));
    put(key("deleted"), deleted);
    put(key("expiring"), expiring);
    putAll(List.of(new Entry(binary, value(1_003, "binary"))));

    reopen();

    assertThat(get(key("live"))).contains(live);
    assertThat(get(key("deleted"))).contains(deleted);
    assertThat(get(key("expiring"))).contains(expiring);
    assertThat(get(binary)).contains(value(1_003, "binary"));
    put(key("deleted"), value(900, "before the delete"));
    assertThat(get(key("deleted")))
        .as("last-writer-wins still holds against what was stored before the restart")
        .contains(deleted);
  }

  @Test
  void winnersSurviveFlushesCompactionAndReopen() {
    // Operands of one key spread over several files: reads merge across them, compaction too.
    Random random = new Random(3);
    List<Record> records = new ArrayList<>();
    for (int v = 1; v <= 40; v++) {
      byte[] value = new byte[random.nextInt(64)];
      random.nextBytes(value);
      records.add(Record.value(version(v), value, random.nextInt(2) * 1_000_000L, 3));
    }
    records.add(Record.tombstone(version(20), 2));
    Collections.shuffle(records, random);
    Record winner = records.stream().max(Record.LAST_WRITER_WINS).orElseThrow();
    RocksDbStorageEngine rocks = (RocksDbStorageEngine) engine;
    for (int i = 0; i < records.size(); i++) {
      put(key("k"), records.get(i));
      if (i % 10 == 9) {
        Compaction.compact(rocks);
      }
    }
    assertThat(get(key("k"))).as("merged across memtable and files").contains(winner);

    Compaction.compact(rocks);
    assertThat(get(key("k"))).as("after compaction").contains(winner);
    reopen();
    assertThat(get(key("k"))).as("after a reopen").contains(winner);
  }

  @Test
  void aRecordOnlyOnDiskIsNotKnownFromMemoryUntilAGetHasCachedItsBlock() {
    put(key("k"), value(1_000, "v"));
    Compaction.compact((RocksDbStorageEngine) engine);
    reopen();

    assertThat(engine.getFromMemory(key("k"))).as("its block not cached yet").isEmpty();
    assertThat(get(key("k"))).contains(value(1_000, "v"));
    assertThat(engine.getFromMemory(key("k")))
        .as("its block cached by the get")
        .contains(Optional.of(value(1_000, "v")));
    assertThat(engine.getFromMemory(key("absent")))
        .as("ruled out by the cached filter")
        .contains(Optional.empty());
  }

  @Test
  void purgeIndexSurvivesReopen() {
    put(key("deleted"), tombstone(1_000));

    reopen();

    assertThat(purge(2_000, 100).removed()).isEqualTo(1);
    assertThat(get(key("deleted"))).isEmpty();
  }

  @Test
  void secondOpenOfADirectoryInUseFails() {
    assertThatThrownBy(() -> RocksDbStorageEngine.open(dir, SMALL, executor).close())
        .isInstanceOf(StorageException.class)
        .hasMessageContaining(dir.toString());

    put(key("k"), value(1, "v"));
    assertThat(get(key("k"))).as("the first engine is unharmed").contains(value(1, "v"));
  }

  @Test
  void concurrentPutsAreWrittenTogether() throws Exception {
    ThreadPoolExecutor single = StorageThreads.bounded(1, 100);
    CountDownLatch release = new CountDownLatch(1);
    try (RocksDbStorageEngine grouped =
        RocksDbStorageEngine.open(dir.resolve("grouped"), QUEUED, single)) {
      single.execute(() -> awaitQuietly(release)); // the only thread is busy meanwhile
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(grouped.put(key("k" + i), value(1, "v" + i)));
      }
      puts.add(grouped.putAll(List.of(new Entry(key("a"), value(1, "a")))));

      release.countDown();
      CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

      StorageStats stats = grouped.stats();
      assertThat(stats.recordsWritten()).isEqualTo(101);
      assertThat(stats.writeBatches()).as("one batch for what queued meanwhile").isOne();
      assertThat(stats.writeBatchesAtOnce()).isZero();
      assertThat(await(grouped.get(key("k99")))).contains(value(1, "v99"));
    } finally {
      release.countDown();
      assertThat(StorageThreads.stop(single)).isTrue();
    }
  }

  @Test
  void aFullExecutorFailsCallsAtOnceWithOverloaded() throws Exception {
    ThreadPoolExecutor tiny = StorageThreads.bounded(1, 1);
    CountDownLatch release = new CountDownLatch(1);
    StorageEngine overloaded = RocksDbStorageEngine.open(dir.resolve("tiny"), QUEUED, tiny);
    try {
      tiny.execute(() -> awaitQuietly(release)); // occupies the only thread
      tiny.execute(() -> awaitQuietly(release)); // fills the queue

      CompletableFuture<?> get = overloaded.get(key("k"));
      CompletableFuture<?> put = overloaded.put(key("k"), value(1, "v"));
      CompletableFuture<?> putAll = overloaded.putAll(List.of(new Entry(key("k"), value(1, "v"))));

      for (CompletableFuture<?> call : List.of(get, put, putAll)) {
        assertThat(call).isCompletedExceptionally();
        assertThatThrownBy(call::join).hasCauseInstanceOf(OverloadedException.class);
      }
    } finally {
      release.countDown();
      assertThat(StorageThreads.stop(tiny)).isTrue();
      overloaded.close();
    }
  }

  @Test
  void aFullWriteQueueFailsPutsAtOnceWithOverloaded() throws Exception {
    ThreadPoolExecutor single = StorageThreads.bounded(1, 100);
    CountDownLatch release = new CountDownLatch(1);
    RocksDbSettings twoQueued = new RocksDbSettings(false, 8L << 20, 4L << 20, 0, 2, false);
    StorageEngine small = RocksDbStorageEngine.open(dir.resolve("queue"), twoQueued, single);
    try {
      single.execute(() -> awaitQuietly(release));
      CompletableFuture<Void> first = small.put(key("a"), value(1, "a"));
      CompletableFuture<Void> second = small.put(key("b"), value(1, "b"));

      CompletableFuture<Void> third = small.put(key("c"), value(1, "c"));

      assertThat(third).isCompletedExceptionally();
      assertThatThrownBy(third::join).hasCauseInstanceOf(OverloadedException.class);
      release.countDown();
      CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
      assertThat(await(small.get(key("b")))).contains(value(1, "b"));
    } finally {
      release.countDown();
      assertThat(StorageThreads.stop(single)).isTrue();
      small.close();
    }
  }

  @Test
  void aSmallPutIsWrittenOnTheCallersThreadWhileEveryStorageThreadIsBusy() throws Exception {
    ThreadPoolExecutor single = StorageThreads.bounded(1, 100);
    CountDownLatch release = new CountDownLatch(1);
    try (RocksDbStorageEngine atOnce =
        RocksDbStorageEngine.open(dir.resolve("at-once"), SMALL, single)) {
      single.execute(() -> awaitQuietly(release));

      CompletableFuture<Void> put = atOnce.put(key("k"), value(1, "v"));
      CompletableFuture<Void> putAll =
          atOnce.putAll(
              List.of(new Entry(key("a"), value(1, "a")), new Entry(key("b"), tombstone(2))));

      assertThat(put).as("written before the storage thread is free").isCompleted();
      assertThat(putAll).isCompleted();
      assertThat(atOnce.getFromMemory(key("k"))).contains(Optional.of(value(1, "v")));
      assertThat(atOnce.getFromMemory(key("b"))).contains(Optional.of(tombstone(2)));
      assertThat(atOnce.stats().writeBatches()).isEqualTo(2);
      assertThat(atOnce.stats().writeBatchesAtOnce()).isEqualTo(2);
      assertThat(atOnce.stats().recordsWritten()).isEqualTo(3);
    } finally {
      release.countDown();
      assertThat(StorageThreads.stop(single)).isTrue();
    }
  }

  @Test
  void withSyncWritesOrABigBatchThePutWaitsForTheStorageThread() throws Exception {
    ThreadPoolExecutor single = StorageThreads.bounded(1, 100);
    CountDownLatch release = new CountDownLatch(1);
    RocksDbSettings synced = new RocksDbSettings(true, 8L << 20, 4L << 20, 0);
    try (RocksDbStorageEngine sync =
            RocksDbStorageEngine.open(dir.resolve("sync"), synced, single);
        RocksDbStorageEngine plain =
            RocksDbStorageEngine.open(dir.resolve("plain"), SMALL, single)) {
      single.execute(() -> awaitQuietly(release));
      byte[] big = new byte[(int) AtOnceWrites.MAX_BYTES + 1];

      CompletableFuture<Void> fsynced = sync.put(key("k"), value(1, "v"));
      CompletableFuture<Void> large = plain.put(key("big"), Record.value(version(1), big));

      assertThat(fsynced).as("an fsync never runs on the caller's thread").isNotDone();
      assertThat(large).as("a batch over the limit is queued").isNotDone();
      release.countDown();
      CompletableFuture.allOf(fsynced, large).get(10, TimeUnit.SECONDS);
      assertThat(await(sync.get(key("k")))).contains(value(1, "v"));
    } finally {
      release.countDown();
      assertThat(StorageThreads.stop(single)).isTrue();
    }
  }

  /**
   * An engine asking for quiet background work has RocksDB's flush and compaction threads run at
   * nice 19, as Linux's /proc shows it once each has taken a job since (issue 23).
   */
  @Test
  void quietBackgroundRunsFlushesAndCompactionsAtTheLowestPriority() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    StorageEngine quiet =
        RocksDbStorageEngine.open(
            dir.resolve("quiet"),
            new RocksDbSettings(WalSync.OS, 8L << 20, 256L << 10, 0, 4096, true, true, false),
            executor);
    try {
      Random random = new Random(7);
      // 8 MiB of incompressible values through 256 KiB memtables: flushes (RocksDB's high pool)
      // and compactions of the files they make (its low pool).
      for (int i = 0; i < 512; i++) {
        byte[] value = new byte[16 << 10];
        random.nextBytes(value);
        quiet.put(key("k" + i), Record.value(version(1), value)).get(10, TimeUnit.SECONDS);
      }
      Awaitility.await("a flush and a compaction thread at nice 19")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(rocksDbThreadsAtNice19()).contains("rocksdb:high", "rocksdb:low"));
    } finally {
      quiet.close();
    }
  }

  /** The pools (thread names without their number) with a thread at nice 19 in this process. */
  private static Set<String> rocksDbThreadsAtNice19() throws IOException {
    Set<String> pools = new HashSet<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        // After the name: state (field 3) ... nice (field 19).
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        if (name.startsWith("rocksdb:") && fields[16].equals("19")) {
          pools.add(name.replaceAll("\\d+$", ""));
        }
      }
    }
    return pools;
  }

  /** 64 KiB values are queued, 16 KiB ones written at once: both fail alike on a full disk. */
  @ParameterizedTest
  @ValueSource(ints = {64 << 10, 16 << 10})
  void writesFailWithNoSpaceOnceTheDiskBudgetIsSpent(int valueBytes) {
    StorageEngine capped =
        RocksDbStorageEngine.open(
            dir.resolve("capped"),
            new RocksDbSettings(false, 8L << 20, 256L << 10, 1L << 20),
            executor);
    try {
      Random random = new Random(7);
      Throwable failure = null;
      int written = 0;
      // Incompressible bytes: the budget is 1 MiB, so a few flushes exceed it.
      for (int i = 0; i < 40 * (1 << 20) / valueBytes && failure == null; i++) {
        byte[] value = new byte[valueBytes];
        random.nextBytes(value);
        try {
          capped.put(key("k" + i), Record.value(version(1), value)).get(10, TimeUnit.SECONDS);
          written++;
        } catch (ExecutionException e) {
          failure = e.getCause();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }

      assertThat(failure)
          .as("a write failed after %d succeeded", written)
          .isInstanceOf(StorageException.class);
      assertThat(((StorageException) failure).kind()).isEqualTo(StorageException.Kind.NO_SPACE);
    } finally {
      capped.close();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
