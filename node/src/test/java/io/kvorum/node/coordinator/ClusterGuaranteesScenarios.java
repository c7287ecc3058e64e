package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.TestCluster;
import java.time.Duration;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The guarantees of SPEC §3, shown on real nodes (HTTP, coordinator, RocksDB) whose links can be
 * cut and slowed: what a client of any node sees, whatever node is down, where it is a particular
 * answer (a 504 naming the replica, a breaker answering at once, what a node alone serves), a
 * real-time order the simulator's checkers do not judge (the later of two acknowledged writes
 * wins), or a mechanism they cannot tell apart from another (read repair, where anti-entropy and
 * hints would mend the same replica). That quorums overlap, acknowledged writes survive a
 * minority's loss, hinted writes reach a returning replica and replicas converge on exactly their
 * {@code from} copies are the simulator's to show, over many seeds (docs/testing.md, "Moved to the
 * simulator").
 */
abstract class ClusterGuaranteesScenarios {
  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }

  private static Optional<String> get(KvorumClient client, String key, int ack, int from) {
    return client.get(utf8(key), Consistency.of(ack, from)).map(v -> new String(v, UTF_8));
  }

  private static void put(KvorumClient client, String key, String value, int ack, int from) {
    client.put(utf8(key), utf8(value), Consistency.of(ack, from));
  }

  @Test
  void backToBackWritesThroughDifferentNodesResolveToTheLastAcknowledged() {
    try (TestCluster cluster = clusters().start(3)) {
      for (int i = 0; i < 200; i++) {
        String key = "race-" + i;
        cluster.client(1).put(key, "first");
        cluster.client(2).put(key, "second");
        assertThat(cluster.client(3).getUtf8(key)).as(key).hasValue("second");
      }
    }
  }

  @Test
  void aMissingReplicaGives504WithinTheTimeoutAndAtOnceOnceItsBreakerIsOpen() {
    Duration timeout = Duration.ofMillis(600);
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(timeout))) {
      cluster.isolate(3);
      KvorumClient kv = cluster.client(1);
      long first = timed(() -> assertNotEnoughReplicas(() -> put(kv, "all-or-nothing", "v", 3, 3)));
      assertThat(Duration.ofNanos(first)).isLessThan(timeout.multipliedBy(3));
      for (int i = 0; i < 6; i++) {
        assertNotEnoughReplicas(() -> put(kv, "all-or-nothing", "v", 3, 3));
      }
      long open = timed(() -> assertNotEnoughReplicas(() -> put(kv, "all-or-nothing", "v", 3, 3)));
      assertThat(Duration.ofNanos(open)).isLessThan(timeout.dividedBy(2));
      // The majority still serves quorum requests meanwhile.
      put(kv, "majority", "ok", 2, 3);
      assertThat(get(cluster.client(2), "majority", 2, 3)).hasValue("ok");
    }
  }

  @Test
  void aQuorumThatCannotBeReachedFailsAtOnceNamingTheReplicaThatIsDown() throws Exception {
    try (TestCluster cluster = clusters().start(3)) {
      cluster.stop(3);
      KvorumClientException failure =
          catchThrowableOfType(
              KvorumClientException.class, () -> get(cluster.client(1), "any", 3, 3));

      assertThat(failure.status()).isEqualTo(504);
      JsonNode problem = new ObjectMapper().readTree(failure.body());
      assertThat(problem.path("required").asInt()).isEqualTo(3);
      assertThat(problem.path("failed").toString())
          .isEqualTo("{\"n3\":\"not available: " + cluster.refusedReason() + "\"}");
      assertThat(problem.path("answered").asInt() + problem.path("pending").size())
          .as("the two replicas that are up either answered or had not yet")
          .isEqualTo(2);
    }
  }

  @Test
  void readRepairFixesAStaleReplicaEvenWhenItAnswersAfterTheResponse() {
    // No hints, so that only read repair can bring n3 up to date.
    try (TestCluster cluster = clusters().start(3, c -> c.maxHintsPerPeer(0))) {
      put(cluster.client(1), "repaired", "old", 3, 3);
      cluster.isolate(3);
      put(cluster.client(1), "repaired", "new", 2, 3);
      cluster.heal();
      assertThat(cluster.node(3).stored("repaired").map(r -> new String(r.value(), UTF_8)))
          .hasValue("old");
      // n3 answers last, after the client has its answer from the first replica.
      cluster.delay(1, 3, Duration.ofMillis(300));
      assertThat(get(cluster.client(1), "repaired", 1, 3)).isPresent();
      Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(
                          cluster.node(3).stored("repaired").map(r -> new String(r.value(), UTF_8)))
                      .hasValue("new"));
    }
  }

  @Test
  void aNodeServesWhatItCanWhileItsPeersAreDown() {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(Duration.ofMillis(300)))) {
      cluster.stop(2);
      cluster.stop(3);
      cluster.stop(1);
      cluster.startNode(1); // catch-up skips the peers that refuse connections
      put(cluster.client(1), "alone", "still works", 1, 3);
      assertThat(get(cluster.client(1), "alone", 1, 3)).hasValue("still works");
      assertNotEnoughReplicas(() -> get(cluster.client(1), "alone", 2, 3));
    }
  }

  private static void assertNotEnoughReplicas(Runnable request) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(504));
  }

  private static long timed(Runnable action) {
    long start = System.nanoTime();
    action.run();
    return System.nanoTime() - start;
  }
}
