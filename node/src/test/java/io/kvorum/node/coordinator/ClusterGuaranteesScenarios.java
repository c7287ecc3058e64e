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
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The guarantees of SPEC §3, shown on real nodes (HTTP, coordinator, RocksDB) whose links can be
 * cut and slowed: what a client of any node sees, whatever node is down.
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
  void anyNodeServesAnyKey() {
    try (TestCluster cluster = clusters().start(3)) {
      for (int i = 0; i < 30; i++) {
        cluster.client(1 + i % 3).put("k" + i, "v" + i);
      }
      for (int node = 1; node <= 3; node++) {
        for (int i = 0; i < 30; i++) {
          assertThat(cluster.client(node).getUtf8("k" + i)).hasValue("v" + i);
        }
      }
    }
  }

  @Test
  void aWriteStoresExactlyFromCopies() {
    try (TestCluster cluster = clusters().start(3)) {
      for (int from = 1; from <= 3; from++) {
        for (int i = 0; i < 20; i++) {
          String key = "copies-" + from + "-" + i;
          put(cluster.client(1 + i % 3), key, "v", from, from);
          int copies = 0;
          for (int node = 1; node <= 3; node++) {
            copies += cluster.node(node).stored(key).isPresent() ? 1 : 0;
          }
          assertThat(copies).as("copies of %s written with from=%d", key, from).isEqualTo(from);
        }
      }
    }
  }

  @Test
  void aWriteAcknowledgedWhileAReplicaWasDownReachesItWhenItReturns() {
    try (TestCluster cluster = clusters().start(2)) {
      cluster.stop(2);
      put(cluster.client(1), "missed", "new value", 1, 2);
      cluster.startNode(2);
      put(cluster.client(1), "deleted-while-away", "old", 2, 2);
      cluster.stop(2);
      cluster.client(1).delete(utf8("deleted-while-away"), Consistency.of(1, 2));
      cluster.startNode(2);
      // The returning node caught up before it reported ready: 2/2 reads agree at once.
      for (int node = 1; node <= 2; node++) {
        assertThat(get(cluster.client(node), "missed", 2, 2)).hasValue("new value");
        assertThat(get(cluster.client(node), "deleted-while-away", 2, 2)).isEmpty();
      }
      assertThat(cluster.node(2).stored("missed")).isPresent();
    }
  }

  @Test
  void quorumWritesSurviveTheLossOfAnyMinority() {
    try (TestCluster cluster = clusters().start(3)) {
      IntStream.range(0, 60).forEach(i -> put(cluster.client(1 + i % 3), "q" + i, "v" + i, 2, 3));
      for (int down = 1; down <= 3; down++) {
        cluster.stop(down);
        int reader = down % 3 + 1;
        for (int i = 0; i < 60; i++) {
          assertThat(get(cluster.client(reader), "q" + i, 2, 3))
              .as("q%d read at 2/3 through n%d with n%d down", i, reader, down)
              .hasValue("v" + i);
        }
        cluster.startNode(down);
      }
    }
  }

  @Test
  void readAndWriteQuorumsThatOverlapAlwaysSeeTheWrite() {
    try (TestCluster cluster = clusters().start(3)) {
      // PUT 2/3 with n3 down, then GET 2/3 with n1 down: n2 is in both quorums.
      cluster.stop(3);
      put(cluster.client(1), "overlap", "written", 2, 3);
      cluster.startNode(3);
      cluster.stop(1);
      assertThat(get(cluster.client(2), "overlap", 2, 3)).hasValue("written");
      assertThat(get(cluster.client(3), "overlap", 2, 3)).hasValue("written");
      // GET 2/3 sees DELETE 2/3.
      cluster.startNode(1);
      cluster.stop(2);
      cluster.client(1).delete(utf8("overlap"), Consistency.of(2, 3));
      cluster.startNode(2);
      cluster.stop(3);
      assertThat(get(cluster.client(2), "overlap", 2, 3)).isEmpty();
    }
    try (TestCluster pair = clusters().start(2)) {
      // GET 1/2 sees PUT 2/2.
      put(pair.client(1), "all", "both", 2, 2);
      assertThat(get(pair.client(2), "all", 1, 2)).hasValue("both");
    }
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
  void anIsolatedNodeAnswers504ForQuorumsAndEveryReplicaConvergesAfterHealing() {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(Duration.ofMillis(400)))) {
      cluster.isolate(3);
      for (int i = 0; i < 20; i++) {
        put(cluster.client(1 + i % 2), "p" + i, "during partition " + i, 2, 3);
      }
      assertNotEnoughReplicas(() -> put(cluster.client(3), "minority", "x", 2, 3));
      assertNotEnoughReplicas(() -> get(cluster.client(3), "p0", 2, 3));
      cluster.heal();
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                for (int i = 0; i < 20; i++) {
                  assertThat(cluster.node(3).stored("p" + i)).as("p%d on n3", i).isPresent();
                }
              });
    }
  }

  @Test
  void hintsSurviveARestartOfTheNodeHoldingThem() {
    try (TestCluster cluster = clusters().start(2)) {
      cluster.stop(2);
      put(cluster.client(1), "durable-hint", "kept on disk", 1, 2);
      // A hint is stored after the write it stands for has its quorum: wait for it.
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(cluster.node(1).hints().pending(cluster.id(2))).isEqualTo(1));
      cluster.stop(1);
      cluster.startNode(1);
      assertThat(cluster.node(1).hints().pending(cluster.id(2))).isEqualTo(1);
      cluster.startNode(2);
      assertThat(cluster.node(2).stored("durable-hint")).isPresent();
      assertThat(cluster.node(1).hints().pending(cluster.id(2))).isZero();
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
