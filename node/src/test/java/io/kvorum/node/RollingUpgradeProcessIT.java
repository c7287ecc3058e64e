package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.BatchItemResult;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.core.Release;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.PreviousRelease;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a rolling upgrade from the previous release ({@link PreviousRelease}, built from git)
 * to this one, under a quorum load, as an operator does it: each node in turn is taken out of the
 * load balancer, stopped with SIGTERM, started from the new jar on the same data directory, and put
 * back once ready. No request at {@code ack=2 from=3} fails, and every acknowledged write reads
 * back at the end. Keys written with {@code from=1} by the old cluster live on one node each, so
 * reading them back shows each node kept the data directory the previous release wrote. Once the
 * first node runs this release, a batch through it works beside the two old replicas (issue 45),
 * which get its items one by one, and a conditional write answers a clean 503.
 */
// Runs with no other class beside it (node/pom.xml): no request of its four writers may fail.
@Tag("alone")
class RollingUpgradeProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Consistency QUORUM = Consistency.of(2, 3);
  private static final Consistency ALONE = Consistency.of(1, 1);
  private static final int NODES = 3;
  private static final int SEEDS = 90;

  @TempDir Path work;

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void aClusterOfThePreviousReleaseIsUpgradedNodeByNodeUnderAQuorumLoadWithoutAnErrorOrALoss()
      throws Exception {
    long start = System.nanoTime();
    Path previous = PreviousRelease.jar();
    long built = System.nanoTime();
    ProcessCluster cluster = new ProcessCluster(work, NODES);
    for (int i = 0; i < NODES; i++) {
      cluster.jar(i, previous);
    }
    try (cluster) {
      cluster.start();
      for (int i = 0; i < NODES; i++) {
        // 0.2.0 reports the same version as this unreleased build; it advertises no HTTP address.
        assertThat(advertisesItsHttpAddress(cluster.node(i)))
            .as("node-%d runs %s", i, PreviousRelease.VERSION)
            .isFalse();
      }
      cluster.awaitStreams();
      try (KvorumClient kv = cluster.client(0)) {
        for (int s = 0; s < SEEDS; s++) {
          kv.put(utf8("seed/" + s), utf8("old-" + s), ALONE);
        }
      }
      try (Load load = new Load(cluster, 4)) {
        load.awaitAcknowledged(200);
        for (int i = 0; i < NODES; i++) {
          load.avoid(i);
          assertThat(cluster.node(i).terminate())
              .as("node-%d's exit on SIGTERM; its stderr: %s", i, cluster.node(i).stderr())
              .isZero();
          cluster.jar(i, NodeProcess.jar());
          cluster.restart(i);
          assertThat(reportedVersion(cluster.node(i))).contains(Release.version());
          assertThat(advertisesItsHttpAddress(cluster.node(i))).as("node-%d upgraded", i).isTrue();
          load.use(i);
          load.awaitAcknowledged(200);
          if (i == 0) {
            mixedReleases(cluster.node(0));
          }
        }
        Map<String, String> verdict = load.stop();

        assertThat(load.failures()).as("requests at ack=2 that failed, by reason").isEmpty();
        assertThat(verdict).as("acknowledged writes lost, of %d keys", load.keys()).isEmpty();
        System.out.printf(
            "%d writes acknowledged at ack=2 over %d keys, none failed%n",
            load.acknowledged(), load.keys());
      }
      try (KvorumClient kv = cluster.client(1)) {
        for (int s = 0; s < SEEDS; s++) {
          String expected = "old-" + s;
          assertThat(kv.get(utf8("seed/" + s), ALONE))
              .as("seed/%d, on one node only since %s wrote it", s, PreviousRelease.VERSION)
              .hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo(expected));
        }
      }
      for (int i = 0; i < NODES; i++) {
        assertThat(cluster.node(i).terminate()).as("node-%d's exit", i).isZero();
      }
    }
    System.out.printf(
        "rolling upgrade from %s: %.0f s to get its jar, %.0f s in all%n",
        PreviousRelease.VERSION, (built - start) / 1e9, (System.nanoTime() - start) / 1e9);
  }

  /**
   * What needs this release on the coordinator alone, through the upgraded node while the other two
   * still run the previous one (docs/compatibility.md): a batch (SPEC §2) that every replica must
   * take, which the previous release's replicas refuse as a message they do not know and get item
   * by item. Conditional writes (SPEC §10) came after 0.2.0, whose replicas refuse their Paxos
   * messages as unknown too: they answer 503 at once, naming those replicas, and write nothing.
   */
  private static void mixedReleases(NodeProcess upgraded) {
    Consistency all = Consistency.of(NODES, NODES);
    Map<String, byte[]> values = new TreeMap<>();
    for (int k = 0; k < 100; k++) {
      values.put("batch/" + k, utf8("b-" + k));
    }
    try (KvorumClient kv =
        KvorumClient.builder()
            .seed("127.0.0.1", upgraded.httpPort())
            .discovery(false)
            .routing(false)
            .maxAttempts(1)
            .build()) {
      assertThat(kv.putAll(values, all, null))
          .as("a batch of 100 puts at ack=from=3, two replicas of %s", PreviousRelease.VERSION)
          .extracting(BatchItemResult::status)
          .containsOnly(201);
      List<BatchItemResult> read = kv.getAll(List.copyOf(values.keySet()), all);
      for (BatchItemResult item : read) {
        assertThat(item.foundUtf8()).as(item.key()).contains("b-" + item.key().substring(6));
      }
      KvorumClientException refused =
          catchThrowableOfType(
              KvorumClientException.class, () -> kv.putIfAbsent(utf8("create/0"), utf8("v")));
      assertThat(refused.status()).as("%s", refused).isEqualTo(503);
      assertThat(refused.detail()).contains("refused the Paxos messages as unknown");
      assertThat(kv.get(utf8("create/0"), all)).as("nothing written").isEmpty();
    }
  }

  /** The {@code version} of the node's {@code GET /v0/cluster}. */
  private static Optional<String> reportedVersion(NodeProcess node) throws Exception {
    JsonNode version = cluster(node).path("version");
    return version.isTextual() ? Optional.of(version.asText()) : Optional.empty();
  }

  /**
   * Whether the node lists its own HTTP address in {@code GET /v0/cluster} (members advertise it
   * since after 0.2.0).
   */
  private static boolean advertisesItsHttpAddress(NodeProcess node) throws Exception {
    for (JsonNode member : cluster(node).path("nodes")) {
      if (member.path("self").asBoolean()) {
        return member.path("httpAddress").isTextual();
      }
    }
    throw new AssertionError("GET /v0/cluster lists no member as self");
  }

  private static JsonNode cluster(NodeProcess node) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + node.httpPort() + "/v0/cluster"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("GET /v0/cluster: %s", response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }

  /**
   * Writers that each own their keys and put (9 in 10) or delete them in turn at {@code ack=2},
   * through the nodes in rotation but those taken out, recording what was acknowledged. A key's
   * writes are ordered (one writer, one request at a time), so at the end it must read as its last
   * acknowledged write, or as a later attempt that failed but may have been applied.
   */
  private static final class Load implements AutoCloseable {
    private static final int KEYS_PER_WRITER = 50;

    private final ProcessCluster cluster;
    private final ExecutorService writers;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Set<Integer> avoided = ConcurrentHashMap.newKeySet();
    private final AtomicInteger[] inFlight = new AtomicInteger[NODES];
    private final AtomicLong acknowledged = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

    /** Per key, its writes in order: a value, or null for a delete; acknowledged or not. */
    private final Map<String, List<Object[]>> history = new ConcurrentHashMap<>();

    Load(ProcessCluster cluster, int writerCount) {
      this.cluster = cluster;
      for (int i = 0; i < NODES; i++) {
        inFlight[i] = new AtomicInteger();
      }
      this.writers = Executors.newFixedThreadPool(writerCount);
      for (int w = 0; w < writerCount; w++) {
        int writer = w;
        writers.execute(() -> write(writer));
      }
    }

    private void write(int writer) {
      List<KvorumClient> clients = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        clients.add(cluster.client(i));
      }
      try {
        for (long n = 0; running.get(); n++) {
          int node = (int) ((n + writer) % NODES);
          inFlight[node].incrementAndGet();
          try {
            if (avoided.contains(node)) {
              continue;
            }
            String key = "w" + writer + "/" + (n % KEYS_PER_WRITER);
            String value = ThreadLocalRandom.current().nextInt(10) == 0 ? null : key + "@" + n;
            boolean ok;
            try {
              if (value == null) {
                clients.get(node).delete(utf8(key), QUORUM);
              } else {
                clients.get(node).put(utf8(key), utf8(value), QUORUM);
              }
              ok = true;
              acknowledged.incrementAndGet();
            } catch (RuntimeException e) {
              ok = false;
              String reason = "node-" + node + ": " + e.getMessage();
              failures
                  .computeIfAbsent(
                      reason.substring(0, Math.min(160, reason.length())), r -> new AtomicLong())
                  .incrementAndGet();
            }
            history.computeIfAbsent(key, k -> new ArrayList<>()).add(new Object[] {value, ok});
          } finally {
            inFlight[node].decrementAndGet();
          }
        }
      } finally {
        clients.forEach(KvorumClient::close);
      }
    }

    /** Takes node {@code i} out of the rotation and waits for the requests it coordinates. */
    void avoid(int i) {
      avoided.add(i);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> inFlight[i].get() == 0);
    }

    void use(int i) {
      avoided.remove(i);
    }

    void awaitAcknowledged(long more) {
      long target = acknowledged.get() + more;
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> acknowledged.get() >= target || !failures.isEmpty());
    }

    Map<String, Long> failures() {
      Map<String, Long> counts = new TreeMap<>();
      failures.forEach((reason, count) -> counts.put(reason, count.get()));
      return counts;
    }

    long acknowledged() {
      return acknowledged.get();
    }

    int keys() {
      return history.size();
    }

    /** Stops writing and reads every key at quorum: what it lost, by key (empty: nothing). */
    Map<String, String> stop() throws InterruptedException {
      running.set(false);
      writers.shutdown();
      if (!writers.awaitTermination(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("writers did not stop");
      }
      Map<String, String> lost = new TreeMap<>();
      try (KvorumClient reader = cluster.client(0)) {
        history.forEach(
            (key, writes) -> {
              int latest = -1;
              for (int i = 0; i < writes.size(); i++) {
                if ((boolean) writes.get(i)[1]) {
                  latest = i;
                }
              }
              if (latest < 0) {
                return;
              }
              Optional<String> read = reader.get(utf8(key), QUORUM).map(v -> new String(v, UTF_8));
              boolean allowed = false;
              for (int i = latest; i < writes.size() && !allowed; i++) {
                String value = (String) writes.get(i)[0];
                allowed = value == null ? read.isEmpty() : read.equals(Optional.of(value));
              }
              if (!allowed) {
                Object expected = writes.get(latest)[0];
                lost.put(
                    key,
                    "expected "
                        + (expected == null ? "deleted" : expected)
                        + ", read "
                        + read.orElse("nothing"));
              }
            });
      }
      return lost;
    }

    @Override
    public void close() throws InterruptedException {
      if (running.get()) {
        stop();
      }
    }
  }
}
