package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.ProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 on real processes: a node whose data directory is wiped gets every key back from its
 * peers by anti-entropy alone, as the nodes' views count it. No client read happens before the
 * check, which reads from the one node left running, so only what it holds can answer. (That a
 * delete a node missed past the hint window stays deleted once its tombstone is purged is the
 * simulator's: docs/testing.md, "Moved to the simulator".)
 */
class AntiEntropyProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REPAIR_INTERVAL = Duration.ofSeconds(2);

  /**
   * docs/configuration.md: a wiped node holds its records again within about the repair interval
   * plus its data over the peers' repair rate plus one scan of a peer's records. 2,000 small keys
   * are a fraction of a second at 8 MiB/s; the rest is slack for a busy machine.
   */
  private static final Duration BOUND = REPAIR_INTERVAL.plusSeconds(45);

  @TempDir Path work;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aWipedNodeGetsEveryKeyBackWithoutAnyRead() throws Exception {
    int keys = 2000;
    try (ProcessCluster cluster =
        new ProcessCluster(work, 3, "--repair-interval", REPAIR_INTERVAL.toMillis() + "ms")
            .start()) {
      Map<String, byte[]> values = new LinkedHashMap<>();
      for (int i = 0; i < keys; i++) {
        values.put("key/" + i, utf8("value/" + i));
      }
      cluster.putAll(0, values, Consistency.of(3, 3));

      assertThat(cluster.node(2).terminate()).isZero();
      wipe(work.resolve("node-2"));
      long started = System.nanoTime();
      cluster.restart(2);

      // The wiped node's own round (its first, an interval after start) pulls from both peers.
      try (KvorumClient kv = cluster.client(2)) {
        Awaitility.await()
            .atMost(BOUND)
            .pollInterval(Duration.ofMillis(250))
            .until(() -> exchangedWithEveryPeer(kv));
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(took).isLessThanOrEqualTo(BOUND);
      // What the exchanges moved (node-2 pulled, or its peers pushed), as /v0/cluster shows it.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> repairedAsTheViewsShow(cluster) >= keys);

      assertThat(cluster.node(0).terminate()).isZero();
      assertThat(cluster.node(1).terminate()).isZero();
      try (KvorumClient kv = cluster.client(2)) {
        for (int i = 0; i < keys; i++) {
          String expected = "value/" + i;
          assertThat(kv.get(utf8("key/" + i), Consistency.of(1, 3)))
              .as("key/%d on the wiped node-2 alone", i)
              .hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo(expected));
        }
      }
    }
  }

  /**
   * The records all exchanges moved, summed over every node's {@code /v0/cluster}; -1 while some
   * node has not finished an exchange with some peer yet.
   */
  private static long repairedAsTheViewsShow(ProcessCluster cluster) throws IOException {
    long repaired = 0;
    for (int n = 0; n < 3; n++) {
      try (KvorumClient kv = cluster.client(n)) {
        for (JsonNode member : JSON.readTree(get(kv, KvorumApi.PATH_CLUSTER)).path("nodes")) {
          if (!member.path("self").asBoolean()) {
            if (!member.path("repair").has("lastRoundFinished")) {
              return -1;
            }
            repaired += member.path("repair").path("recordsRepairedTotal").asLong();
          }
        }
      }
    }
    return repaired;
  }

  /** Whether the node has finished an exchange with each of its peers since it started. */
  private static boolean exchangedWithEveryPeer(KvorumClient kv) throws IOException {
    JsonNode view = JSON.readTree(get(kv, KvorumApi.PATH_CLUSTER));
    for (JsonNode member : view.path("nodes")) {
      if (!member.path("self").asBoolean() && !member.path("repair").has("lastRoundFinished")) {
        return false;
      }
    }
    return true;
  }

  private static byte[] get(KvorumClient kv, String path) {
    return kv.send(HttpRequest.newBuilder(URI.create(kv.baseUri() + path)).GET()).body();
  }

  private static void wipe(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(dir).doesNotExist();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
