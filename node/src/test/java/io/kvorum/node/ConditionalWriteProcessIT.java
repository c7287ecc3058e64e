package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.CasCounter;
import io.kvorum.node.testing.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional writes (SPEC §10) through the HTTP API of three node processes: a counter incremented
 * by compare-and-set through every node while one is SIGKILLed and restarted, then writes with one
 * replica down (decided) and with two down (504, never a wrong 201 or 412).
 */
class ConditionalWriteProcessIT {
  private static final int INCREMENTS = 45;

  @TempDir Path work;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aCounterSurvivesASigkillAndAMajorityDecides() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3, "--request-timeout", "2s").start()) {
      List<KvorumClient> clients = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        clients.add(cluster.client(i));
      }
      byte[] counter = "counter".getBytes(UTF_8);
      AtomicInteger applied = new AtomicInteger();
      AtomicInteger unknown = new AtomicInteger();
      Set<Long> written = ConcurrentHashMap.newKeySet();
      AtomicInteger doubled = new AtomicInteger();
      ExecutorService workers = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
          int worker = w;
          running.add(
              workers.submit(
                  () -> {
                    for (int op = 0; applied.get() < INCREMENTS; op++) {
                      int node = (worker + op) % 3;
                      if (!cluster.node(node).isAlive()) {
                        continue;
                      }
                      long value = CasCounter.increment(clients.get(node), counter);
                      if (value > 0) {
                        applied.incrementAndGet();
                        if (!written.add(value)) {
                          doubled.incrementAndGet();
                        }
                      } else if (value == CasCounter.UNKNOWN) {
                        unknown.incrementAndGet();
                      }
                    }
                    return null;
                  }));
        }
        awaitAtLeast(applied, INCREMENTS / 3);
        cluster.node(2).kill();
        awaitAtLeast(applied, 2 * INCREMENTS / 3);
        cluster.restart(2);
        for (Future<?> worker : running) {
          worker.get(2, TimeUnit.MINUTES);
        }
      } finally {
        workers.shutdownNow();
      }
      long value = CasCounter.value(clients.get(2).getVersioned(counter));
      assertThat(doubled.get()).as("increments that wrote a value another one wrote").isZero();
      assertThat(value)
          .as(
              "the counter after %d applied and %d unknown increments",
              applied.get(), unknown.get())
          .isBetween((long) applied.get(), (long) applied.get() + unknown.get());

      // One of three down: a majority decides.
      cluster.node(2).kill();
      KvorumClient kv = clients.get(0);
      byte[] name = "unique-name".getBytes(UTF_8);
      ConditionalResult created = kv.putIfAbsent(name, "one".getBytes(UTF_8));
      assertThat(created.applied()).isTrue();
      assertThat(kv.putIfAbsent(name, "again".getBytes(UTF_8)).applied()).isFalse();
      String etag = created.etag().orElseThrow();
      assertThat(kv.putIfMatch(name, "two".getBytes(UTF_8), etag).applied()).isTrue();

      // Two of three down: no quorum, 504 whatever the condition.
      cluster.node(1).kill();
      assertThat(status(() -> kv.putIfMatch(name, "three".getBytes(UTF_8), etag))).isEqualTo(504);
      assertThat(status(() -> kv.putIfAbsent("fresh".getBytes(UTF_8), "x".getBytes(UTF_8))))
          .isEqualTo(504);
      assertThat(status(() -> kv.deleteIfMatch(name, etag))).isEqualTo(504);
      for (KvorumClient client : clients) {
        client.close();
      }
    }
  }

  private static int status(Runnable request) {
    try {
      request.run();
      return 200;
    } catch (KvorumClientException e) {
      return e.status();
    }
  }

  private static void awaitAtLeast(AtomicInteger count, int target) {
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> count.get() >= target);
  }
}
