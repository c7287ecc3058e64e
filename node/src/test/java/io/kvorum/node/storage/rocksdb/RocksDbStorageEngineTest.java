package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageEngineContract;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbStorageEngineTest extends StorageEngineContract {
  private static final RocksDbSettings SMALL = new RocksDbSettings(false, 8L << 20, 4L << 20, 0);

  @TempDir Path dir;

  private ThreadPoolExecutor executor;

  @Override
  protected StorageEngine newEngine() {
    executor = boundedExecutor(4, 10_000);
    return RocksDbStorageEngine.open(dir, SMALL, executor);
  }

  @AfterEach
  void stopExecutor() throws InterruptedException {
    // Runs before the contract closes the engine, which needs no executor to close.
    executor.shutdownNow();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
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
    put(binary, value(1_003, "binary"));
    engine.close();

    engine = RocksDbStorageEngine.open(dir, SMALL, executor);

    assertThat(get(key("live"))).contains(live);
    assertThat(get(key("deleted"))).contains(deleted);
    assertThat(get(key("expiring"))).contains(expiring);
    assertThat(get(binary)).contains(value(1_003, "binary"));
    assertThat(put(key("deleted"), value(900, "before the delete")))
        .as("last-writer-wins still holds against what was stored before the restart")
        .isFalse();
  }

  @Test
  void purgeIndexSurvivesReopen() {
    put(key("deleted"), tombstone(1_000));
    engine.close();

    engine = RocksDbStorageEngine.open(dir, SMALL, executor);

    assertThat(purge(2_000, 100).removed()).isEqualTo(1);
    assertThat(get(key("deleted"))).isEmpty();
  }

  @Test
  void secondOpenOfADirectoryInUseFails() {
    assertThatThrownBy(() -> RocksDbStorageEngine.open(dir, SMALL, executor).close())
        .isInstanceOf(StorageException.class)
        .hasMessageContaining(dir.toString());

    assertThat(put(key("k"), value(1, "v"))).as("the first engine is unharmed").isTrue();
  }

  @Test
  void aFullExecutorFailsCallsAtOnceWithOverloaded() throws Exception {
    ThreadPoolExecutor tiny = boundedExecutor(1, 1);
    CountDownLatch release = new CountDownLatch(1);
    StorageEngine overloaded = RocksDbStorageEngine.open(dir.resolve("tiny"), SMALL, tiny);
    try {
      tiny.execute(() -> awaitQuietly(release)); // occupies the only thread
      tiny.execute(() -> awaitQuietly(release)); // fills the queue

      CompletableFuture<?> get = overloaded.get(key("k"));
      CompletableFuture<?> put = overloaded.put(key("k"), value(1, "v"));

      for (CompletableFuture<?> call : new CompletableFuture<?>[] {get, put}) {
        assertThat(call).isCompletedExceptionally();
        assertThatThrownBy(call::join).hasCauseInstanceOf(OverloadedException.class);
      }
    } finally {
      release.countDown();
      tiny.shutdown();
      assertThat(tiny.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      overloaded.close();
    }
  }

  @Test
  void writesFailWithNoSpaceOnceTheDiskBudgetIsSpent() {
    StorageEngine capped =
        RocksDbStorageEngine.open(
            dir.resolve("capped"),
            new RocksDbSettings(false, 8L << 20, 256L << 10, 1L << 20),
            executor);
    try {
      Random random = new Random(7);
      Throwable failure = null;
      int written = 0;
      // 64 KiB of incompressible bytes per write: the budget is 1 MiB, so a few flushes exceed it.
      for (int i = 0; i < 640 && failure == null; i++) {
        byte[] value = new byte[64 << 10];
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

  private static ThreadPoolExecutor boundedExecutor(int threads, int queue) {
    AtomicInteger n = new AtomicInteger();
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queue),
        r -> {
          Thread t = new Thread(r, "test-storage-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        },
        new ThreadPoolExecutor.AbortPolicy());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
