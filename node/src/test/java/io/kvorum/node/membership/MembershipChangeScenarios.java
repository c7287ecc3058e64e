package io.kvorum.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.CapturedLog;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.topology.RendezvousPlacement;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Membership changes (SPEC §8) on real nodes, each under a concurrent quorum write load: no
 * acknowledged write is lost, every key reads back at quorum, and once the change completed every
 * key is on exactly its new owners.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class MembershipChangeScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  /**
   * Membership changes move on at gossip ticks: these scenarios run them at a fifth of a second's,
   * not the node's own second's, and so wait a fifth as long for each step (the steps and their
   * order stay the same).
   */
  private static final Duration GOSSIP_INTERVAL = Duration.ofMillis(200);

  private TestCluster.Factory gossipingFast() {
    return clusters().with(c -> c.gossipInterval(GOSSIP_INTERVAL));
  }

  static HttpResponse<String> post(TestCluster cluster, int node, String pathAndQuery)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(cluster.node(node).url(pathAndQuery)))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode clusterView(TestCluster cluster, int node) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(cluster.node(node).url("/v0/cluster"))).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private static void preload(TestCluster cluster, int keys) {
    for (int i = 0; i < keys; i++) {
      cluster.client(1 + i % 3).put("pre-" + i, "v" + i);
    }
  }

  @Test
  void aNodeJoinsUnderLoadStreamsItsKeysAndOldOwnersDropThem() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3)) {
      preload(cluster, 300);
      int joined;
      try (MembershipLoad load =
          new MembershipLoad(cluster, 3, 40, () -> 1 + ThreadLocalRandom.current().nextInt(3))) {
        Awaitility.await().until(() -> load.writes() > 100);
        joined = cluster.join(1);
        assertThat(cluster.node(joined).ready()).succeedsWithin(Duration.ofSeconds(60));
        long before = load.writes();
        Awaitility.await().until(() -> load.writes() > before + 100);
        load.close();
        List<NodeId> members = cluster.ids();
        for (int node = 1; node <= 4; node++) {
          load.assertNothingLost(node);
        }
        for (int i = 0; i < 300; i++) {
          assertThat(cluster.client(joined).getUtf8("pre-" + i)).hasValue("v" + i);
        }
        java.util.Set<String> keys = new java.util.HashSet<>(load.keys());
        for (int i = 0; i < 300; i++) {
          keys.add("pre-" + i);
        }
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(MembershipLoad.misplaced(cluster, keys, members)).isEmpty());
      }
      JsonNode view = clusterView(cluster, joined);
      assertThat(view.path("change").isMissingNode()).isTrue();
      // Seeded at 1; the join started at 2, moved its reads at 3, completed at 4.
      assertThat(view.path("epoch").asLong()).isEqualTo(4);
      for (JsonNode member : view.path("nodes")) {
        assertThat(member.path("state").asText()).as(member.toString()).isEqualTo("up");
      }
      for (int node = 1; node <= 3; node++) {
        assertThat(clusterView(cluster, node).path("epoch").asLong()).isEqualTo(4);
      }
    }
  }

  @Test
  void aDecommissionedNodeStreamsItsRecordsAwayLeavesAndMayNotStartAgain() throws Exception {
    // A slow stream, so that the decommission is still in progress when a second change is asked.
    try (TestCluster cluster = gossipingFast().start(4, c -> c.repair(4096, Duration.ofHours(1)))) {
      preload(cluster, 300);
      try (MembershipLoad load =
          new MembershipLoad(cluster, 3, 40, () -> 1 + ThreadLocalRandom.current().nextInt(3))) {
        Awaitility.await().until(() -> load.writes() > 100);
        HttpResponse<String> started = post(cluster, 4, "/v0/cluster/decommission");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        Awaitility.await()
            .until(
                () -> clusterView(cluster, 1).path("change").path("kind").asText(),
                "decommission"::equals);

        HttpResponse<String> second = post(cluster, 1, "/v0/cluster/decommission");
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.headers().firstValue("content-type"))
            .hasValue("application/problem+json");
        JsonNode problem = JSON.readTree(second.body());
        assertThat(problem.path("change").path("kind").asText()).isEqualTo("decommission");
        assertThat(problem.path("change").path("node").asText()).isEqualTo("n4");
        JsonNode view = clusterView(cluster, 1);
        assertThat(view.path("change").path("kind").asText()).isEqualTo("decommission");
        assertThat(view.path("nodes").get(3).path("state").asText()).isEqualTo("leaving");

        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> cluster.node(4).left());
        long before = load.writes();
        Awaitility.await().until(() -> load.writes() > before + 100);
        load.close();
        for (int node = 1; node <= 3; node++) {
          load.assertNothingLost(node);
        }
        java.util.Set<String> keys = new java.util.HashSet<>(load.keys());
        for (int i = 0; i < 300; i++) {
          keys.add("pre-" + i);
          assertThat(cluster.client(2).getUtf8("pre-" + i)).hasValue("v" + i);
        }
        List<NodeId> members = cluster.ids().subList(0, 3);
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(MembershipLoad.misplaced(cluster, keys, members)).isEmpty());
      }
      for (int node = 1; node <= 3; node++) {
        JsonNode view = clusterView(cluster, node);
        assertThat(view.path("nodes")).hasSize(3);
        assertThat(view.path("change").isMissingNode()).isTrue();
      }
      cluster.stop(4);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> cluster.startNode(4))
          .hasMessageContaining("decommissioned")
          .hasMessageContaining("wipe its data directory");
    }
  }

  @Test
  void aDeadNodeIsRemovedAndItsKeysCopiedFromTheSurvivorsToTheirNewOwners() throws Exception {
    try (TestCluster cluster = gossipingFast().start(4)) {
      preload(cluster, 300);
      HttpResponse<String> unknown = post(cluster, 1, "/v0/cluster/remove?node=n9");
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(post(cluster, 1, "/v0/cluster/remove?node=n1").statusCode()).isEqualTo(400);
      HttpResponse<String> live = post(cluster, 1, "/v0/cluster/remove?node=n2");
      assertThat(live.statusCode()).as(live.body()).isEqualTo(409);
      cluster.stop(4);
      try (MembershipLoad load =
          new MembershipLoad(cluster, 3, 40, () -> 1 + ThreadLocalRandom.current().nextInt(3))) {
        Awaitility.await().until(() -> load.writes() > 100);
        HttpResponse<String> started = post(cluster, 2, "/v0/cluster/remove?node=n4");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> clusterView(cluster, 1).path("nodes").size() == 3);
        long before = load.writes();
        Awaitility.await().until(() -> load.writes() > before + 100);
        load.close();
        for (int node = 1; node <= 3; node++) {
          load.assertNothingLost(node);
        }
        java.util.Set<String> keys = new java.util.HashSet<>(load.keys());
        for (int i = 0; i < 300; i++) {
          keys.add("pre-" + i);
          assertThat(cluster.client(3).getUtf8("pre-" + i)).hasValue("v" + i);
        }
        List<NodeId> members = cluster.ids().subList(0, 3);
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(MembershipLoad.misplaced(cluster, keys, members)).isEmpty());
      }
    }
  }

  /**
   * Was: the joining node scanned every owner whole and kept what it gained, so each record came
   * from all three of its owners and the others crossed the network for nothing.
   */
  @Test
  void aJoiningNodeReceivesEachRecordItGainsOnceFromTheOwnerItDisplaces() throws Exception {
    // No request runs during the join: its driver need not wait for any to end.
    try (CapturedLog log = CapturedLog.of(ChangeDriver.class);
        TestCluster cluster = gossipingFast().start(3, c -> c.settleTime(Duration.ofMillis(100)))) {
      preload(cluster, 300);
      int joined = cluster.join(1);
      assertThat(cluster.node(joined).ready()).succeedsWithin(Duration.ofSeconds(60));
      RendezvousPlacement after = new RendezvousPlacement(cluster.ids());
      long gained =
          IntStream.range(0, 300)
              .filter(i -> after.replicas(Key.utf8("pre-" + i), 3).contains(cluster.id(joined)))
              .count();
      assertThat(gained).isBetween(180L, 270L); // about three in four
      Awaitility.await()
          .untilAsserted(
              () ->
                  assertThat(log.lines(Level.INFO))
                      .anySatisfy(
                          line ->
                              assertThat(line)
                                  .contains("join of " + cluster.id(joined))
                                  .contains("complete")
                                  .contains("streamed " + gained + " copies of records")));
    }
  }

  @Test
  void aJoinWhoseNodeDiedIsAbortedByRemovingItAndNoAcknowledgedWriteIsLost() throws Exception {
    // A slow stream, so that the join is still in progress when its node dies.
    try (TestCluster cluster = gossipingFast().start(3, c -> c.repair(256, Duration.ofHours(1)))) {
      preload(cluster, 600);
      List<NodeId> members = cluster.ids();
      try (MembershipLoad load =
          new MembershipLoad(cluster, 3, 40, () -> 1 + ThreadLocalRandom.current().nextInt(3))) {
        int joined = cluster.join(1);
        NodeId id = cluster.id(joined);
        Awaitility.await()
            .until(
                () -> clusterView(cluster, 2).path("change").path("kind").asText().equals("join"));
        long during = load.writes();
        Awaitility.await().until(() -> load.writes() > during + 50); // some reach the new node too
        cluster.stop(joined);

        HttpResponse<String> aborted = post(cluster, 2, "/v0/cluster/remove?node=" + id);

        assertThat(aborted.statusCode()).as(aborted.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(aborted.body());
        assertThat(body.path("status").asText()).isEqualTo("aborted");
        assertThat(body.path("change").path("kind").asText()).isEqualTo("join");
        for (int node = 1; node <= 3; node++) {
          int n = node;
          Awaitility.await()
              .untilAsserted(
                  () -> {
                    JsonNode view = clusterView(cluster, n);
                    assertThat(view.path("change").isMissingNode()).isTrue();
                    assertThat(view.path("nodes").findValuesAsText("id"))
                        .containsExactlyInAnyOrder("n1", "n2", "n3");
                  });
        }
        long after = load.writes();
        Awaitility.await().until(() -> load.writes() > after + 50);
        load.close();
        for (int node = 1; node <= 3; node++) {
          load.assertNothingLost(node);
        }
        for (int i = 0; i < 600; i++) {
          assertThat(cluster.client(3).getUtf8("pre-" + i)).hasValue("v" + i);
        }

        // The dead node comes back: it learns it is no member and stops by itself.
        CompletableFuture<Void> ignored = cluster.startNodeInBackground(joined);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cluster.node(joined).left());
        assertThat(clusterView(cluster, 1).path("nodes").findValuesAsText("id"))
            .containsExactlyInAnyOrderElementsOf(members.stream().map(NodeId::value).toList());
      }
    }
  }

  @Test
  void aJoiningNodeStoppedMidStreamResumesWhereItStoppedOnceStartedAgain() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3, c -> c.repair(4096, Duration.ofHours(1)))) {
      preload(cluster, 600);
      int joined = cluster.join(1);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  clusterView(cluster, joined).path("nodes").findValues("streaming").stream()
                          .mapToLong(s -> s.path("recordsReceived").asLong())
                          .sum()
                      > 20);
      cluster.stop(joined);
      assertThat(clusterView(cluster, 1).path("change").path("kind").asText()).isEqualTo("join");
      cluster.startNode(joined);
      for (int i = 0; i < 600; i++) {
        assertThat(cluster.client(joined).getUtf8("pre-" + i)).hasValue("v" + i);
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(clusterView(cluster, 2).path("change").isMissingNode()).isTrue());
      java.util.Set<String> keys = new java.util.HashSet<>();
      for (int i = 0; i < 600; i++) {
        keys.add("pre-" + i);
      }
      List<NodeId> members = cluster.ids();
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(MembershipLoad.misplaced(cluster, keys, members)).isEmpty());
    }
  }
}
