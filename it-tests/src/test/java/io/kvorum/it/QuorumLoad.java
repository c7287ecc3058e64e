package io.kvorum.it;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;

/**
 * Continuous client load at quorum (2/3): writers each own a set of keys and put (9 in 10) or
 * delete (1 in 10) them in turn, through the nodes in rotation, recording every outcome in a {@link
 * History}. Nodes can be left out as coordinators while a scenario has them down; the latencies of
 * acknowledged requests are kept per time window to check latency bounds.
 */
final class QuorumLoad implements AutoCloseable {
  static final Consistency QUORUM = Consistency.of(2, 3);

  /**
   * Acknowledged writes that make a phase of a scenario ({@link #awaitAcknowledged}): before a
   * fault and after it heals, so that every node has taken writes and the history holds well over
   * the 50 keys a check reads ({@link #PHASE}); while a node is down, cut off, stopped or full, so
   * that the others hold hints for it ({@link #FAULT_PHASE}); and a longer load whose history is
   * checked by itself ({@link #LONG_PHASE}).
   */
  static final int PHASE = 100;

  static final int FAULT_PHASE = 200;
  static final int LONG_PHASE = 300;

  /** Ample for a few hundred writes of four writers on a busy two-core machine. */
  private static final Duration ACKNOWLEDGED_WITHIN = Duration.ofSeconds(60);

  private final ClusterClients cluster;
  private final History history = new History();
  private final Set<Integer> excluded = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final ExecutorService writers;
  private final AtomicLong failures = new AtomicLong();
  private final Map<String, AtomicLong> failureReasons = new ConcurrentHashMap<>();
  private final List<long[]> latencies = new ArrayList<>();

  QuorumLoad(ClusterClients cluster, int writers, int keysPerWriter) {
    this(cluster, writers, keysPerWriter, "w");
  }

  /**
   * Writers whose keys are {@code <prefix><writer>/<n>}: loads of different prefixes write disjoint
   * keys.
   */
  QuorumLoad(ClusterClients cluster, int writers, int keysPerWriter, String prefix) {
    this.cluster = cluster;
    this.writers = Executors.newFixedThreadPool(writers);
    for (int w = 0; w < writers; w++) {
      int writer = w;
      this.writers.execute(() -> run(writer, prefix + writer, keysPerWriter));
    }
  }

  private void run(int writer, String name, int keys) {
    List<KvorumClient> clients = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      clients.add(cluster.client(i));
    }
    try {
      for (long n = 0; running.get(); n++) {
        int node = (int) ((n + writer) % cluster.size());
        if (excluded.contains(node)) {
          continue;
        }
        String key = name + "/" + (n % keys);
        boolean delete = ThreadLocalRandom.current().nextInt(10) == 0;
        String value = delete ? null : name + "-" + n;
        long start = System.nanoTime();
        boolean acknowledged;
        try {
          if (delete) {
            clients.get(node).delete(key.getBytes(StandardCharsets.UTF_8), QUORUM);
          } else {
            clients
                .get(node)
                .put(
                    key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8),
                    QUORUM);
          }
          acknowledged = true;
          synchronized (latencies) {
            latencies.add(new long[] {System.nanoTime(), System.nanoTime() - start});
          }
        } catch (RuntimeException e) {
          acknowledged = false;
          failures.incrementAndGet();
          String reason = "node-" + node + ": " + String.valueOf(e.getMessage());
          failureReasons
              .computeIfAbsent(
                  reason.substring(0, Math.min(120, reason.length())), r -> new AtomicLong())
              .incrementAndGet();
        }
        history.record(key, value, acknowledged);
        sleepQuietly(2);
      }
    } finally {
      clients.forEach(KvorumClient::close);
    }
  }

  /** Stops sending requests through node {@code i} (it is down, paused or cut off). */
  void avoid(int i) {
    excluded.add(i);
  }

  void use(int i) {
    excluded.remove(i);
  }

  /** Nanosecond timestamp for windows of {@link #maxLatencyNanosSince}. */
  static long now() {
    return System.nanoTime();
  }

  /** The longest acknowledged request that finished after {@code since}. */
  long maxLatencyNanosSince(long since) {
    synchronized (latencies) {
      return latencies.stream().filter(l -> l[0] >= since).mapToLong(l -> l[1]).max().orElse(0);
    }
  }

  long acknowledgedSince(long since) {
    synchronized (latencies) {
      return latencies.stream().filter(l -> l[0] >= since).count();
    }
  }

  long failures() {
    return failures.get();
  }

  /**
   * Waits until {@code writes} more requests have been acknowledged from now on: the load has gone
   * on that far (through the nodes in use), in however long the machine takes, rather than for a
   * fixed time a busy machine may spend on a few requests and an idle one on thousands.
   */
  void awaitAcknowledged(int writes) {
    long since = now();
    Awaitility.await(writes + " quorum writes acknowledged")
        .atMost(ACKNOWLEDGED_WITHIN)
        .pollInterval(Duration.ofMillis(20))
        .failFast("the load stopped", () -> !running.get())
        .until(() -> acknowledgedSince(since) >= writes);
  }

  /** Why requests failed, with counts, for reports. */
  Map<String, Long> failureReasons() {
    Map<String, Long> reasons = new java.util.TreeMap<>();
    failureReasons.forEach((reason, count) -> reasons.put(reason, count.get()));
    return reasons;
  }

  /** Stops the load and returns its history. */
  History stop() throws InterruptedException {
    running.set(false);
    writers.shutdown();
    if (!writers.awaitTermination(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("writers did not stop");
    }
    return history;
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (running.get()) {
      stop();
    }
  }
}
