package io.kvorum.node.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientBuilder;
import io.kvorum.node.testing.CountingTcpProxy;
import io.kvorum.node.testing.LocalCluster;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java client against a cluster of three in-process nodes: a node stopped while the client
 * writes and reads fails none of its idempotent calls, and a thousand async calls at once open no
 * more connections than the client's bound.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class KvorumClientClusterTest {
  private LocalCluster cluster;

  @BeforeEach
  void start() {
    cluster = LocalCluster.start(3);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private KvorumClientBuilder everyNode() {
    KvorumClientBuilder builder = KvorumClient.builder().discovery(false);
    for (int i = 1; i <= 3; i++) {
      builder.seed("127.0.0.1", cluster.node(i).address().getPort());
    }
    return builder;
  }

  @Test
  void aClientGivenOneNodeLearnsEveryMemberAtTheHttpAddressItAdvertises() {
    List<URI> every = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      every.add(URI.create("http://127.0.0.1:" + cluster.node(i).address().getPort()));
    }
    try (KvorumClient one =
        KvorumClient.builder().seed("127.0.0.1", cluster.node(1).address().getPort()).build()) {
      // Members tell each other their addresses by gossip; /v0/cluster lists them once known.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  one.admin().cluster().members().stream().allMatch(m -> m.httpAddress() != null));
      assertThat(one.admin().cluster().members())
          .extracting(m -> URI.create("http://" + m.httpAddress()))
          .containsExactlyInAnyOrderElementsOf(every);

      one.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));

      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(one.nodes()).containsExactlyInAnyOrderElementsOf(every));
    }
  }

  @Test
  void aNodeStoppedMidRunFailsNoIdempotentCall() throws Exception {
    ConcurrentLinkedQueue<Throwable> failed = new ConcurrentLinkedQueue<>();
    AtomicInteger done = new AtomicInteger();
    AtomicBoolean running = new AtomicBoolean(true);
    try (KvorumClient kv = everyNode().build()) {
      List<Thread> workers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int worker = w;
        workers.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      for (int i = 0; running.get(); i++) {
                        byte[] key = ("w" + worker + "/" + i).getBytes(UTF_8);
                        byte[] value = ("v" + i).getBytes(UTF_8);
                        try {
                          kv.put(key, value, Consistency.of(2, 3));
                          Optional<byte[]> read = kv.get(key, Consistency.of(2, 3));
                          if (read.isEmpty() || !new String(read.get(), UTF_8).equals("v" + i)) {
                            failed.add(new AssertionError("lost " + new String(key, UTF_8)));
                          }
                          if (i % 3 == 0) {
                            kv.delete(key, Consistency.of(2, 3));
                          }
                          done.incrementAndGet();
                        } catch (RuntimeException e) {
                          failed.add(e);
                        }
                      }
                    }));
      }
      awaitCalls(done, 200);
      cluster.stop(2);
      int atStop = done.get();
      awaitCalls(done, atStop + 400);
      running.set(false);
      for (Thread worker : workers) {
        worker.join();
      }
    }
    assertThat(failed).isEmpty();
  }

  private static void awaitCalls(AtomicInteger done, int atLeast) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (done.get() < atLeast && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(done.get()).as("calls done").isGreaterThanOrEqualTo(atLeast);
  }

  @Test
  void aThousandAsyncCallsAtOnceShareABoundedNumberOfConnections() {
    try (CountingTcpProxy proxy = new CountingTcpProxy(cluster.node(1).address());
        KvorumClient kv =
            KvorumClient.builder()
                .discovery(false)
                .seed("127.0.0.1", proxy.port())
                .maxInFlight(16)
                .deadline(Duration.ofSeconds(60))
                .attemptTimeout(Duration.ofSeconds(30))
                .build()) {
      List<CompletableFuture<String>> writes = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        writes.add(
            kv.putAsync(("async/" + i).getBytes(UTF_8), new byte[100], Consistency.DEFAULT, null));
      }
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
      assertThat(writes).allMatch(write -> write.join().startsWith("\""));
      List<CompletableFuture<Optional<byte[]>>> reads = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        reads.add(kv.getAsync(("async/" + i).getBytes(UTF_8), Consistency.DEFAULT));
      }
      CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).join();
      assertThat(reads).allMatch(read -> read.join().orElseThrow().length == 100);
      assertThat(proxy.mostOpen()).isBetween(1, 16);
      assertThat(proxy.accepted()).isLessThanOrEqualTo(16);
    }
  }
}
