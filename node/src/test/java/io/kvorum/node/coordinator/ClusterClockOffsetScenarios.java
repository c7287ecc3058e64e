package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.testing.TestWallClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, part 2, on real nodes with clocks set wrong on purpose: a node whose clock is far from
 * its peers' never makes a later write lose. It refuses to coordinate writes (503 naming the
 * offset) and reports not ready but serves reads; its peers' replicas refuse versions that far
 * ahead of their clocks; within the max clock offset nothing changes. (The issue's own scenario, a
 * write through the node an hour ahead refused and a later write and a delete through another never
 * lost, runs on processes: ClockSkewProcessIT.)
 */
abstract class ClusterClockOffsetScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final long HOUR = Duration.ofHours(1).toMillis();

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  /**
   * A cluster of three whose node n1 has the wall clock {@code n1}, once n1 has measured both
   * peers' clocks. Until then n1 cannot know its clock is off: a node that starts before its peers
   * measures each one when its connection comes up, and in those first milliseconds a write it
   * coordinates is refused for another reason than the one these scenarios check (its peers', not
   * its own: {@link UnprovenClockWriteTest}).
   */
  TestCluster withN1On(LongSupplier n1) {
    TestCluster cluster =
        clusters()
            .start(
                3,
                config -> config,
                id -> id.value().equals("n1") ? n1 : System::currentTimeMillis);
    try {
      Awaitility.await("n1 has measured the clocks of n2 and n3")
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                JsonNode view = clusterView(cluster.client(1));
                return !offset(view, "n2").isMissingNode() && !offset(view, "n3").isMissingNode();
              });
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  @Test
  void aNodeAnHourAheadRefusesToCoordinateWritesReportsNotReadyAndStillServesReads()
      throws IOException {
    try (TestCluster cluster = withN1On(TestWallClock.shiftedBy(Duration.ofHours(1)))) {
      KvorumClientException refused = refusedWrite(() -> put(cluster.client(1), "k", "a", 2));
      JsonNode problem = JSON.readTree(refused.body());
      assertThat(problem.path("clockOffsetMillis").asLong())
          .isBetween(HOUR - 10_000, HOUR + 10_000);
      assertThat(problem.path("maxClockOffsetMillis").asLong()).isEqualTo(500);
      assertThat(problem.path("detail").asText())
          .contains("this node's clock is")
          .contains("ahead of 2 of its 2 peers")
          .contains("max clock offset of 500 ms");
      refusedWrite(() -> cluster.client(1).delete(utf8("k"), Consistency.of(1, 3)));

      assertThat(cluster.client(1).ready()).isFalse();
      HttpResponse<byte[]> probe = send(cluster.client(1), "/health/ready");
      assertThat(probe.statusCode()).isEqualTo(503);
      assertThat(new String(probe.body(), UTF_8)).contains("ahead of 2 of its 2 peers");
      assertThat(cluster.client(2).ready()).isTrue();
      assertThat(cluster.client(3).ready()).isTrue();

      put(cluster.client(2), "k", "b", 3);
      assertThat(get(cluster.client(1), "k", 3)).as("reads go on").hasValue("b");

      JsonNode fromN1 = clusterView(cluster.client(1));
      assertThat(fromN1.path("ready").asBoolean()).isFalse();
      assertThat(fromN1.path("writesRefused").asText()).contains("ahead of 2 of its 2 peers");
      assertThat(offset(fromN1, "n1").isMissingNode()).as("no offset to itself").isTrue();
      assertThat(offset(fromN1, "n2").asLong()).isBetween(-HOUR - 10_000, -HOUR + 10_000);
      assertThat(offset(fromN1, "n3").asLong()).isBetween(-HOUR - 10_000, -HOUR + 10_000);
      JsonNode fromN2 = clusterView(cluster.client(2));
      assertThat(fromN2.path("ready").asBoolean()).isTrue();
      assertThat(fromN2.has("writesRefused")).isFalse();
      assertThat(offset(fromN2, "n1").asLong()).isBetween(HOUR - 10_000, HOUR + 10_000);
      assertThat(offset(fromN2, "n3").asLong()).isBetween(-1_000L, 1_000L);

      assertThat(new String(send(cluster.client(2), "/metrics").body(), UTF_8))
          .containsPattern("kvorum_clock_offset_seconds\\{[^}]*peer=\"n1\"[^}]*} 3[56]\\d\\d\\.");
    }
  }

  @Test
  void aClockSteppedAheadWhileTheNodeRunsIsNoticedAtItsVeryNextWrite() {
    TestWallClock n1 = TestWallClock.shiftedBy(Duration.ZERO);
    try (TestCluster cluster = withN1On(n1)) {
      put(cluster.client(1), "k", "before the step", 3);

      n1.shift(Duration.ofHours(1));

      KvorumClientException refused = refusedWrite(() -> put(cluster.client(1), "k", "A", 1));
      assertThat(refused.detail()).contains("ahead of 2 of its 2 peers");
      for (int node = 1; node <= 3; node++) {
        assertThat(cluster.node(node).stored("k"))
            .as("n%d holds no version from the future", node)
            .map(r -> new String(r.value(), UTF_8))
            .hasValue("before the step");
      }
      put(cluster.client(2), "k", "later, through B", 3);
      cluster.client(2).delete(utf8("k"), Consistency.of(3, 3));
      assertThat(get(cluster.client(1), "k", 3)).isEmpty();

      n1.shift(Duration.ZERO);

      put(cluster.client(1), "k", "clock corrected", 3);
      assertThat(get(cluster.client(3), "k", 3)).hasValue("clock corrected");
      assertThat(cluster.client(1).ready()).isTrue();
    }
  }

  @Test
  void aCoordinatorThatHasNotNoticedHasItsWriteRefusedByTheReplicasAndHintsNothing()
      throws IOException {
    // n1 alone tolerates two hours: its clock, an hour ahead, is within its own bound.
    try (TestCluster cluster =
        clusters()
            .start(
                3,
                config ->
                    config.nodeId().value().equals("n1")
                        ? config.maxClockOffset(Duration.ofHours(2))
                        : config,
                id ->
                    id.value().equals("n1")
                        ? TestWallClock.shiftedBy(Duration.ofHours(1))
                        : System::currentTimeMillis)) {
      KvorumClientException refused = refusedWrite(() -> put(cluster.client(1), "k", "A", 2));

      JsonNode problem = JSON.readTree(refused.body());
      assertThat(problem.path("clockOffsetMillis").asLong()).isBetween(HOUR - 10_000, HOUR);
      assertThat(problem.path("maxClockOffsetMillis").asLong()).isEqualTo(500);
      assertThat(problem.path("detail").asText()).contains("refused the write");
      assertThat(cluster.node(2).stored("k")).isEmpty();
      assertThat(cluster.node(3).stored("k")).isEmpty();
      for (JsonNode node : clusterView(cluster.client(1)).path("nodes")) {
        assertThat(node.path("hintsPending").asLong()).as("hints for %s", node.path("id")).isZero();
      }
    }
  }

  @Test
  void withinTheMaxOffsetClocksFollowEachOtherAndALaterWriteThroughASlowerNodeWins()
      throws IOException {
    try (TestCluster cluster = withN1On(TestWallClock.shiftedBy(Duration.ofMillis(300)))) {
      for (int i = 0; i < 20; i++) {
        String key = "follow-" + i;
        put(cluster.client(1), key, "first, through the faster clock", 3);
        put(cluster.client(2), key, "then through a clock 300 ms behind", 2);
        assertThat(get(cluster.client(3), key, 3)).hasValue("then through a clock 300 ms behind");
      }
      for (int node = 1; node <= 3; node++) {
        assertThat(cluster.client(node).ready()).as("n%d ready", node).isTrue();
      }
      JsonNode n1 = clusterView(cluster.client(2)).path("nodes").get(0);
      long uncertainty = n1.path("clockUncertaintyMillis").asLong();
      assertThat(n1.path("clockOffsetMillis").asLong())
          .isBetween(300 - uncertainty - 20, 300 + uncertainty + 20);
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  static KvorumClientException refusedWrite(Runnable write) {
    KvorumClientException refused = catchThrowableOfType(KvorumClientException.class, write::run);
    assertThat(refused).as("the write was refused").isNotNull();
    assertThat(refused.status()).as(refused.detail()).isEqualTo(503);
    return refused;
  }

  static void put(KvorumClient client, String key, String value, int ack) {
    client.put(utf8(key), utf8(value), Consistency.of(ack, 3));
  }

  static Optional<String> get(KvorumClient client, String key, int ack) {
    return client.get(utf8(key), Consistency.of(ack, 3)).map(v -> new String(v, UTF_8));
  }

  static JsonNode offset(JsonNode view, String id) {
    for (JsonNode node : view.path("nodes")) {
      if (node.path("id").asText().equals(id)) {
        return node.path("clockOffsetMillis");
      }
    }
    throw new AssertionError("no " + id + " in " + view);
  }

  static JsonNode clusterView(KvorumClient client) throws IOException {
    return JSON.readTree(send(client, "/v0/cluster").body());
  }

  static HttpResponse<byte[]> send(KvorumClient client, String path) {
    return client.send(HttpRequest.newBuilder(URI.create(client.baseUri() + path)).GET());
  }

  static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
