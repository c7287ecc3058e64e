package io.kvorum.node.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.TestConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's stop lets the work its periodic tasks started end before it closes what that work uses
 * (issue 27: a purge sweep's batch ran on against a closed RocksDB and logged a false WARN).
 */
@Timeout(30)
class NodeResourcesTest {
  @TempDir Path dir;

  @Test
  void stoppingWaitsForPeriodicWorkStillRunningBeforeClosingTheStorage() throws Exception {
    NodeResources resources =
        new NodeResources(TestConfig.in(dir).build(), Threading.fromSystemProperties());
    AtomicBoolean workEnded = new AtomicBoolean();
    AtomicBoolean storageClosedWhileWorking = new AtomicBoolean();
    // Opened before the periodic work starts, as the storage is: closed after it.
    resources.closeOnStop(() -> storageClosedWhileWorking.set(!workEnded.get()));
    CompletableFuture<Void> work = new CompletableFuture<>();
    CountDownLatch started = new CountDownLatch(1);
    resources.everyAsync(
        "sweep",
        Duration.ofMillis(1),
        () -> {
          started.countDown();
          return work;
        });
    started.await();

    Thread stopping = Thread.ofPlatform().start(resources::close);
    stopping.join(200);
    workEnded.set(true);
    work.complete(null);
    stopping.join();

    assertThat(storageClosedWhileWorking).as("the storage closed under running work").isFalse();
  }
}
