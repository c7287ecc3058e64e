package io.kvorum.node.cli.admin;

import static io.kvorum.node.cli.admin.AdminCommandsTest.row;
import static io.kvorum.node.cli.admin.AdminCommandsTest.run;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.admin.AdminCommandsTest.Run;
import io.kvorum.node.testing.TestCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kvorum-node status} against a real cluster: every member as the node asked sees it, with
 * the records each reported in its heartbeat, also a member that joined.
 */
@Timeout(60)
abstract class AdminCommandsClusterScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();

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

  @Test
  void statusOfARealClusterShowsEveryNodesRecordsAsItReportsThem() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3)) {
      for (int i = 0; i < 30; i++) {
        cluster
            .client(1)
            .put(("status/" + i).getBytes(UTF_8), "v".getBytes(UTF_8), Consistency.of(3, 3));
      }
      int port = cluster.node(1).address().getPort();
      // Peers report their figures in their answers to the clock heartbeat (every second).
      Awaitility.await("every node's records in n1's view")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode view = clusterView(cluster.client(1));
                for (JsonNode member : view.path("nodes")) {
                  assertThat(member.path("records").asLong())
                      .as("records of %s", member.path("id").asText())
                      .isGreaterThanOrEqualTo(30);
                  assertThat(member.has("diskUsedBytes")).isTrue();
                }
              });

      Run run = run("status", "--host", "127.0.0.1", "--port", String.valueOf(port));

      assertThat(run.exit()).isZero();
      List<String> lines = run.out().lines().toList();
      assertThat(lines.get(0)).startsWith("Cluster as n1 sees it (").contains("3 members, ready");
      for (int i = 1; i <= 3; i++) {
        String id = cluster.id(i).value();
        assertThat(row(lines, id))
            .matches(
                "[* ] +"
                    + id
                    + " +up +"
                    + Pattern.quote(cluster.peerAddress(i))
                    + " +\\S+ +[1-9][0-9]* +\\d.* B +0");
      }
    }
  }

  @Test
  void statusAfterAJoinShowsTheNewNodeUpWithTheRecordsItReportsToTheOldOnes() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3)) {
      for (int i = 0; i < 60; i++) {
        cluster.client(1).put("joined/" + i, "v");
      }
      int joined = cluster.join(1);
      assertThat(cluster.node(joined).ready()).succeedsWithin(Duration.ofSeconds(60));
      String id = cluster.id(joined).value();
      // Old nodes measure a member that joined by their heartbeat from then on.
      Awaitility.await(id + "'s records in n2's view")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode member = null;
                for (JsonNode m : clusterView(cluster.client(2)).path("nodes")) {
                  if (m.path("id").asText().equals(id)) {
                    member = m;
                  }
                }
                assertThat(member).as("%s in n2's view", id).isNotNull();
                assertThat(member.path("state").asText()).isEqualTo("up");
                assertThat(member.path("records").asLong()).isPositive();
                assertThat(member.path("clockOffsetMillis").isNumber()).isTrue();
              });

      Run run =
          run(
              "status",
              "--host",
              "127.0.0.1",
              "--port",
              String.valueOf(cluster.node(2).address().getPort()));

      assertThat(run.exit()).isZero();
      List<String> lines = run.out().lines().toList();
      assertThat(lines.get(0)).startsWith("Cluster as n2 sees it (epoch ").contains("4 members");
      assertThat(row(lines, id))
          .matches(
              " +"
                  + id
                  + " +up +"
                  + Pattern.quote(cluster.peerAddress(joined))
                  + " +\\S+ +[1-9].*");
    }
  }

  private static JsonNode clusterView(KvorumClient client) throws IOException {
    byte[] body =
        client
            .send(HttpRequest.newBuilder(URI.create(client.baseUri() + "/v0/cluster")).GET())
            .body();
    return JSON.readTree(body);
  }
}
