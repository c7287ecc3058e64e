package io.kvorum.node.antientropy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Anti-entropy on real nodes (SPEC §7): a wiped replica is repaired at no more than the repair
 * rate, and an exchange that failed is tried again within its round, as the views show. That a
 * wiped replica gets every record back (tombstones too) without a client read is shown on processes
 * ({@code AntiEntropyProcessIT}) and, with what it converges to, by the simulator; that a delete a
 * replica missed past the hint window stays deleted once purged is the simulator's ({@code PURGE},
 * checked by {@code Resurrection}; docs/testing.md, "Moved to the simulator").
 */
@Timeout(120)
abstract class AntiEntropyClusterScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Consistency ALL = Consistency.of(3, 3);

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  @Test
  void repairSendsNoFasterThanTheRepairRate() {
    long rate = 32 << 10;
    try (TestCluster cluster = clusters().start(3, c -> c.repair(rate, Duration.ofHours(1)))) {
      int keys = 96;
      byte[] value = new byte[1024];
      Arrays.fill(value, (byte) 'x');
      for (int i = 0; i < keys; i++) {
        cluster.client(1).put(("k" + i).getBytes(UTF_8), value, ALL);
      }
      wipe(cluster, 3);
      long bytes = keys * (value.length + 3 + 32L);

      long started = System.nanoTime();
      assertThat(repair(cluster, 3).statusCode()).isEqualTo(202);
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () ->
                  IntStream.range(0, keys)
                      .allMatch(i -> cluster.node(3).stored("k" + i).isPresent()));
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      // A quarter second's worth may go at once; the rest at the rate.
      Duration floor = Duration.ofMillis(bytes * 1000 / rate - 250);
      assertThat(took).isGreaterThanOrEqualTo(floor);
    }
  }

  @Test
  void anExchangeThatFailedIsTriedAgainWithinTheRoundNotAnIntervalLater()
      throws IOException, InterruptedException {
    try (TestCluster cluster = clusters().start(3, c -> c.repair(8 << 20, Duration.ofHours(1)))) {
      int keys = 50;
      for (int i = 0; i < keys; i++) {
        cluster.client(1).put(("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8), ALL);
      }
      cluster.stop(3);
      deleteDataDirectory(cluster, 3);
      assertThat(repair(cluster, 1).statusCode()).isEqualTo(202);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> repairOf(cluster, 1, cluster.id(3)).has("lastError"));

      // n3 comes back empty; nobody reads, nobody asks for a round, and the next one is an hour
      // away: n1's round tries n3 again by itself.
      cluster.startNode(3);
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  IntStream.range(0, keys)
                      .allMatch(i -> cluster.node(3).stored("k" + i).isPresent()));
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode repair = repairOf(cluster, 1, cluster.id(3));
                assertThat(repair.has("lastError")).as("n1's view of n3: %s", repair).isFalse();
                assertThat(repair.get("recordsRepaired").asLong()).isEqualTo(keys);
              });

      // With nothing written since, a round asked for shows as finished later than the last one.
      String last = repairOf(cluster, 1, cluster.id(3)).get("lastRoundFinished").asText();
      Thread.sleep(5);
      assertThat(repair(cluster, 1).statusCode()).isEqualTo(202);
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Instant.parse(
                          repairOf(cluster, 1, cluster.id(3)).get("lastRoundFinished").asText())
                      .isAfter(Instant.parse(last)));
    }
  }

  /** Stops node {@code n}, deletes its data directory, and starts it again under the same id. */
  private static void wipe(TestCluster cluster, int n) {
    cluster.stop(n);
    deleteDataDirectory(cluster, n);
    cluster.startNode(n);
  }

  private static void deleteDataDirectory(TestCluster cluster, int n) {
    Path dir = cluster.node(n).config().dataDir();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code repair} object of {@code peer} in node {@code n}'s {@code /v0/cluster}. */
  private static JsonNode repairOf(TestCluster cluster, int n, NodeId peer) throws IOException {
    for (JsonNode node : cluster(cluster, n).get("nodes")) {
      if (node.get("id").asText().equals(peer.toString())) {
        return node.get("repair");
      }
    }
    throw new AssertionError("no " + peer + " in the view of node " + n);
  }

  private static HttpResponse<byte[]> repair(TestCluster cluster, int n) {
    return cluster
        .client(n)
        .send(
            HttpRequest.newBuilder(URI.create(cluster.node(n).url("/v0/repair")))
                .POST(HttpRequest.BodyPublishers.noBody()));
  }

  private static JsonNode cluster(TestCluster cluster, int n) throws IOException {
    return JSON.readTree(
        cluster
            .client(n)
            .send(HttpRequest.newBuilder(URI.create(cluster.node(n).url("/v0/cluster"))).GET())
            .body());
  }
}
