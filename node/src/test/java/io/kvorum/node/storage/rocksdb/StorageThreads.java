package io.kvorum.node.storage.rocksdb;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Storage executors for tests: bounded, rejecting when full, as the node's own. */
public final class StorageThreads {
  private StorageThreads() {}

  public static ThreadPoolExecutor bounded(int threads, int queue) {
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

  /** Stops {@code executor}; whatever runs on it must be done within ten seconds. */
  public static boolean stop(ThreadPoolExecutor executor) throws InterruptedException {
    executor.shutdownNow();
    return executor.awaitTermination(10, TimeUnit.SECONDS);
  }
}
