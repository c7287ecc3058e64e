package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 7: a rolling upgrade is a chain of restarts, so restarts and fresh starts must
 * always work. Restarts nodes in turn (SIGTERM and SIGKILL alternately) under a quorum load, and
 * starts fresh clusters that are written at once: no exit code but 0 on SIGTERM, no failed write at
 * {@code ack=2} (a 504 included) while one node of three is down or just back, no failed write at
 * {@code ack=3} right after every node reported ready, no acknowledged write lost.
 *
 * <p>{@code -Dkvorum.restarts=N} and {@code -Dkvorum.fresh-clusters=N} set the rounds (CI runs the
 * defaults; docs/decisions/restarts-and-fresh-starts-tested-in-a-chain.md says why, and where the
 * 30-round runs are recorded).
 */
// Runs with no other class beside it (node/pom.xml): no write at ack=2 may fail, within a 1 s
// request timeout.
@Tag("alone")
class RestartsProcessIT {
  private static final Consistency QUORUM = Consistency.of(2, 3);
  private static final Consistency ALL = Consistency.of(3, 3);
  private static final int KEYS = 100;

  @TempDir Path work;

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // about 5 s a round here
  void nodesRestartedInTurnUnderAQuorumLoadExitCleanlyAndLoseNothing() throws Exception {
    int restarts = Integer.getInteger("kvorum.restarts", 6);
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      Writer writer = new Writer(cluster);
      Thread thread = Thread.ofPlatform().name("quorum-writer").start(writer);
      try {
        writer.awaitWrites(200);
        for (int round = 0; round < restarts; round++) {
          int node = round % 3;
          writer.avoid(node);
          NodeProcess stopped = cluster.node(node);
          if (round % 2 == 0) {
            assertThat(stopped.terminate())
                .as(
                    "round %d: node-%d's exit on SIGTERM; its stderr: %s",
                    round, node, stopped.stderr())
                .isZero();
          } else {
            stopped.kill();
          }
          writer.awaitWrites(50); // written while the node is down: its hints and catch-up
          long down = System.nanoTime();
          cluster.restart(node);
          System.out.printf(
              "round %d: node-%d %s, ready again after %d ms; %d writes so far%n",
              round,
              node,
              round % 2 == 0 ? "SIGTERM" : "SIGKILL",
              (System.nanoTime() - down) / 1_000_000,
              writer.written.get());
          writer.avoid(-1);
          writer.awaitWrites(50); // through every node, the restarted one too
        }
      } finally {
        writer.stop();
        thread.join();
      }
      assertThat(writer.failures).as("failed writes at ack=2 (one node down at most)").isEmpty();
      for (int i = 0; i < 3; i++) {
        try (KvorumClient kv = cluster.client(i)) {
          for (Map.Entry<Integer, String> acked : writer.acknowledged.entrySet()) {
            assertThat(kv.get(key(acked.getKey()), QUORUM))
                .as("key %d through node-%d", acked.getKey(), i)
                .hasValueSatisfying(
                    v -> assertThat(new String(v, UTF_8)).isEqualTo(acked.getValue()));
          }
        }
      }
      for (int i = 0; i < 3; i++) {
        NodeProcess node = cluster.node(i);
        assertThat(node.terminate())
            .as("node-%d's exit; its stderr: %s", i, node.stderr())
            .isZero();
      }
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // about 8 s a cluster here
  void freshClustersServeWritesAtEveryQuorumAsSoonAsTheyReportReady() throws Exception {
    int clusters = Integer.getInteger("kvorum.fresh-clusters", 4);
    for (int c = 0; c < clusters; c++) {
      try (ProcessCluster cluster = new ProcessCluster(work.resolve("cluster-" + c), 3).start()) {
        for (int i = 0; i < 3; i++) {
          try (KvorumClient kv = cluster.client(i)) {
            for (int k = 0; k < 10; k++) {
              byte[] key = ("fresh/" + i + "/" + k).getBytes(UTF_8);
              int cluster0 = c;
              int node = i;
              assertThat(kv.put(key, key, ALL))
                  .as(
                      "cluster %d: write %d through node-%d at ack=3 just after ready",
                      cluster0, k, node)
                  .isNotBlank();
            }
          }
        }
        for (int i = 0; i < 3; i++) {
          NodeProcess node = cluster.node(i);
          assertThat(node.terminate())
              .as("cluster %d: node-%d's exit; its stderr: %s", c, i, node.stderr())
              .isZero();
        }
      }
    }
  }

  private static byte[] key(int k) {
    return ("restarts/" + k).getBytes(UTF_8);
  }

  /**
   * One writer, sequential, through the nodes in turn but the one about to stop: each key's last
   * acknowledged value, and every failure. A node is stopped only between two writes (the lock), so
   * no write is cut by the test itself.
   */
  private static final class Writer implements Runnable {
    private final ProcessCluster cluster;
    private final ReentrantReadWriteLock turn = new ReentrantReadWriteLock();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger written = new AtomicInteger();
    private final KvorumClient[] clients = new KvorumClient[3];
    private volatile int avoided = -1;
    final Map<Integer, String> acknowledged = new ConcurrentHashMap<>();
    final List<String> failures = new ArrayList<>();

    Writer(ProcessCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public void run() {
      int n = 0;
      try {
        while (running.get()) {
          turn.readLock().lock();
          try {
            int node = n % 3;
            if (node == avoided) {
              node = (node + 1) % 3;
            }
            if (clients[node] == null) {
              clients[node] = cluster.client(node);
            }
            int k = n % KEYS;
            String value = "v" + n;
            try {
              clients[node].put(key(k), value.getBytes(UTF_8), QUORUM);
              acknowledged.put(k, value);
            } catch (RuntimeException e) {
              synchronized (failures) {
                failures.add("write " + n + " through node-" + node + ": " + e.getMessage());
              }
            }
            written.incrementAndGet();
            n++;
          } finally {
            turn.readLock().unlock();
          }
        }
      } finally {
        for (KvorumClient client : clients) {
          if (client != null) {
            client.close();
          }
        }
      }
    }

    /**
     * From now on no write goes through {@code node} (-1: none avoided), whose client is dropped:
     * its pooled connections end with the process. Returns between two writes.
     */
    void avoid(int node) {
      turn.writeLock().lock();
      try {
        avoided = node;
        if (node >= 0 && clients[node] != null) {
          clients[node].close();
          clients[node] = null;
        }
      } finally {
        turn.writeLock().unlock();
      }
    }

    void awaitWrites(int count) throws InterruptedException {
      int target = written.get() + count;
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (written.get() < target) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the writer made no progress for a minute");
        }
        Thread.sleep(5);
      }
    }

    void stop() {
      running.set(false);
    }
  }
}
