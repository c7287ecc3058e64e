package io.kvorum.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.FeedReader;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Container;

/**
 * Issue 13's container test: membership changes on the image users run, under continuous client
 * load at quorum. A node joins a three-node cluster ({@code KVORUM_JOIN}, as a pod beyond the
 * chart's seed set starts), then leaves it again by {@code kvorum-node decommission} run inside its
 * container, as an operator runs it with {@code kubectl exec}. The history is checked as in {@link
 * FaultScenariosIT}: every write acknowledged at quorum reads back at quorum, and a change feed
 * opened on node-0 before the load showed each of them in its key's order.
 */
@RequiresDocker
class MembershipScenariosIT {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration CHANGE_WITHIN = Duration.ofMinutes(3);
  private static final int SEEDED = 300;

  private DockerCluster cluster;
  private QuorumLoad load;
  private NodeContainer left;
  private FeedReader feed;

  @BeforeEach
  void start() {
    cluster =
        DockerCluster.start(3, Map.of("KVORUM_REQUEST_TIMEOUT", REQUEST_TIMEOUT.toMillis() + "ms"));
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (load != null) {
      load.close();
    }
    if (feed != null) {
      feed.close();
    }
    if (left != null) {
      left.close();
    }
    cluster.close();
  }

  @Test
  void aClusterGrownToFourAndShrunkBackToThreeUnderQuorumLoadLosesNoAcknowledgedWrite()
      throws Exception {
    // Ready is not connected: a peer's breaker may still be open from the start (as ChartClusterIT,
    // wait for every member up before writing to all three).
    awaitMembers(3, List.of(0, 1, 2));
    List<String> seeded = new ArrayList<>();
    try (KvorumClient client = cluster.client(0)) {
      for (int i = 0; i < SEEDED; i++) {
        seeded.add("seeded/" + i);
        client.put(utf8(seeded.get(i)), utf8("v" + i), Consistency.of(3, 3));
      }
    }
    // A change feed on the load's keys (SPEC §12), opened before it on node-0, must show every
    // acknowledged write across the join and the decommission.
    feed =
        FeedReader.open(
            URI.create("http://127.0.0.1:" + cluster.node(0).httpPort() + "/"), "start=w&end=x");
    assertThat(feed.status()).isEqualTo(200);
    // The load goes through the three original nodes only, whatever joins or leaves.
    load = new QuorumLoad(cluster.first(3), 4, 100);
    load.awaitAcknowledged(QuorumLoad.PHASE);

    NodeContainer joining = cluster.addJoining();
    joining.awaitReady(CHANGE_WITHIN);
    awaitMembers(4, List.of(0, 1, 2, 3));
    JsonNode joined = self(cluster.clusterView(3));
    System.out.printf(
        "[membership] node-3 joined, holding %d records (%d bytes on disk)%n",
        joined.path("records").asLong(), joined.path("diskUsedBytes").asLong());
    assertThat(joined.path("records").asLong())
        .as("records node-3 streamed and took while it joined")
        .isPositive();
    Container.ExecResult status = cluster.node(0).run("kvorum-node", "status");
    System.out.printf("[membership] kvorum-node status in node-0:%n%s", status.getStdout());
    assertThat(status.getExitCode())
        .as("status exit code; stderr: %s", status.getStderr())
        .isZero();
    assertThat(status.getStdout()).containsPattern("(?m)^ +node-3 +up +node-3:9090 ");

    load.awaitAcknowledged(QuorumLoad.PHASE);
    Container.ExecResult decommission = joining.run("kvorum-node", "decommission");
    System.out.printf("[membership] %s%s", decommission.getStdout(), decommission.getStderr());
    assertThat(decommission.getExitCode()).as("decommission exit code").isZero();
    assertThat(decommission.getStdout()).contains("node-3", "is leaving the cluster");
    assertThat(joining.awaitExit(CHANGE_WITHIN)).as("exit code once it has left").isZero();
    left = cluster.forgetLast();
    awaitMembers(3, List.of(0, 1, 2));

    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    System.out.printf(
        "[membership] %d requests failed under the load: %s%n",
        load.failures(), load.failureReasons());
    for (int i = 0; i < 3; i++) {
      cluster.awaitHintsDelivered(i);
    }
    history.assertShownBy(feed, "[membership] node-0's feed");
    for (int through = 0; through < 3; through++) {
      try (KvorumClient client = cluster.client(through)) {
        History.Verdict verdict = history.verify(client, QuorumLoad.QUORUM);
        System.out.printf(
            "[membership] read at 2/3 through node-%d: checked %d keys' latest acknowledged"
                + " writes, %d lost%n",
            through, verdict.checked(), verdict.lost().size());
        assertThat(verdict.checked()).as("acknowledged writes checked").isGreaterThan(100);
        assertThat(verdict.lost()).as("acknowledged writes lost").isEmpty();
        for (int i = 0; i < seeded.size(); i++) {
          assertThat(client.get(utf8(seeded.get(i)), QuorumLoad.QUORUM))
              .as("%s through node-%d", seeded.get(i), through)
              .hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).startsWith("v"));
        }
      }
    }

    // Cassandra's behaviour: a decommissioned node started again on its old data refuses to.
    assertThat(left.startExpectingExit())
        .as("exit code of the decommissioned node started again; logs:%n%s", left.logs())
        .isEqualTo(2);
  }

  /** Waits until each of {@code viewers} sees exactly {@code size} members, all up, no change. */
  private void awaitMembers(int size, List<Integer> viewers) {
    Awaitility.await(size + " members up, no change in progress")
        .atMost(CHANGE_WITHIN)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (int i : viewers) {
                JsonNode view = cluster.clusterView(i);
                List<String> members = new ArrayList<>();
                view.path("nodes")
                    .forEach(
                        m -> members.add(m.path("id").asText() + " " + m.path("state").asText()));
                List<String> expected = new ArrayList<>();
                for (int j = 0; j < size; j++) {
                  expected.add("node-" + j + " up");
                }
                assertThat(members).as("members as node-%d sees them", i).isEqualTo(expected);
                assertThat(view.has("change")).as("a change in progress at node-%d", i).isFalse();
              }
            });
  }

  private static JsonNode self(JsonNode view) {
    for (JsonNode member : view.path("nodes")) {
      if (member.path("self").asBoolean()) {
        return member;
      }
    }
    throw new AssertionError("no self in " + view);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
