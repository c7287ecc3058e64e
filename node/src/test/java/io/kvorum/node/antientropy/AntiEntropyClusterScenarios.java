package io.kvorum.node.antientropy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
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
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Anti-entropy on real nodes (SPEC §7): a wiped replica converges without a single client read, at
 * no more than the repair rate, and a replica that missed a delete past the hint window does not
 * bring the value back once the grace period has passed.
 */
@Timeout(120)
abstract class AntiEntropyClusterScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Consistency ALL = Consistency.of(3, 3);

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  @Test
  void aWipedReplicaGetsEveryKeyBackWithoutAnyRead() throws IOException {
    try (TestCluster cluster =
        clusters().start(3, c -> c.repair(8 << 20, Duration.ofMillis(200)))) {
      int keys = 300;
      for (int i = 0; i < keys; i++) {
        cluster.client(1 + i % 3).put(("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8), ALL);
      }
      cluster.client(1).delete("k7".getBytes(UTF_8), ALL);

      wipe(cluster, 3);

      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  IntStream.range(0, keys)
                      .allMatch(i -> cluster.node(3).stored("k" + i).isPresent()));
      for (int i = 0; i < keys; i++) {
        Record record = cluster.node(3).stored("k" + i).orElseThrow();
        if (i == 7) {
          assertThat(record.tombstone()).as("k7 was deleted").isTrue();
        } else {
          assertThat(record.value()).as("k%d", i).isEqualTo(("v" + i).getBytes(UTF_8));
        }
      }
      // Every node's view: each exchange done at least once, and the records they moved (n3 pulled
      // them, or n1 and n2 pushed them) add up to at least every key.
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> repairedAsTheViewsShow(cluster) >= keys);
    }
  }

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

  @Test
  void aDeleteAReplicaMissedPastTheHintWindowDoesNotComeBackAfterTheGracePeriod() {
    try (TestCluster cluster =
        clusters()
            .start(
                3,
                c ->
                    c.hintWindow(Duration.ofMillis(200))
                        .purging(Duration.ofMillis(500), Duration.ofMillis(100))
                        .repair(8 << 20, Duration.ofMillis(300)))) {
      // At 3/3, so n3 holds it once answered (a quorum write is answered at the second copy).
      cluster.client(1).put("doomed".getBytes(UTF_8), "value".getBytes(UTF_8), ALL);
      assertThat(cluster.node(3).stored("doomed")).isPresent();

      cluster.stop(3);
      cluster.client(1).delete("doomed".getBytes(UTF_8), Consistency.of(2, 3));

      // Long past the grace period (and the hint window): the tombstone must stay while n3, which
      // has never seen it, is away.
      Awaitility.await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  isTombstone(cluster.node(1).stored("doomed"))
                      && isTombstone(cluster.node(2).stored("doomed")));

      cluster.startNode(3);
      assertThat(cluster.node(3).stored("doomed").map(Record::tombstone))
          .as("the hint is past its window: n3 still holds the value")
          .contains(false);

      // Anti-entropy brings n3 the tombstone; once rounds with every peer confirm it, all purge.
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  IntStream.rangeClosed(1, 3)
                      .allMatch(n -> cluster.node(n).stored("doomed").isEmpty()));
      for (int n = 1; n <= 3; n++) {
        assertThat(cluster.client(n).get("doomed".getBytes(UTF_8), ALL)).isEmpty();
      }
      // Later rounds have nothing to bring back.
      repair(cluster, 3);
      repair(cluster, 1);
      Awaitility.await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(3))
          .until(
              () ->
                  IntStream.rangeClosed(1, 3)
                      .allMatch(n -> cluster.node(n).stored("doomed").isEmpty()));
    }
  }

  /**
   * The records all exchanges moved, summed over every node's {@code /v0/cluster}; -1 while some
   * node has not finished an exchange with some peer yet.
   */
  private static long repairedAsTheViewsShow(TestCluster cluster) throws IOException {
    long repaired = 0;
    for (int n = 1; n <= 3; n++) {
      for (JsonNode node : cluster(cluster, n).get("nodes")) {
        if (!node.get("self").asBoolean()) {
          if (!node.get("repair").has("lastRoundFinished")) {
            return -1;
          }
          repaired += node.get("repair").get("recordsRepairedTotal").asLong();
        }
      }
    }
    return repaired;
  }

  private static boolean isTombstone(Optional<Record> record) {
    return record.map(Record::tombstone).orElse(false);
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
