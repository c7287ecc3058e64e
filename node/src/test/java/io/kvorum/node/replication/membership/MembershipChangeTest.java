package io.kvorum.node.replication.membership;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Membership changes (SPEC §8) on real nodes over an in-memory network, each under a concurrent
 * quorum write load: no acknowledged write is lost, every key reads back at quorum, and once the
 * change completed every key is on exactly its new owners.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MembershipChangeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  static HttpResponse<String> post(LocalCluster cluster, int node, String pathAndQuery)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(cluster.node(node).url(pathAndQuery)))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode clusterView(LocalCluster cluster, int node) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(cluster.node(node).url("/v0/cluster"))).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private static void preload(LocalCluster cluster, int keys) {
    for (int i = 0; i < keys; i++) {
      cluster.client(1 + i % 3).put("pre-" + i, "v" + i);
    }
  }

  @Test
  void aNodeJoinsUnderLoadStreamsItsKeysAndOldOwnersDropThem() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3)) {
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
      assertThat(view.path("epoch").asLong()).isEqualTo(3);
      for (JsonNode member : view.path("nodes")) {
        assertThat(member.path("state").asText()).as(member.toString()).isEqualTo("up");
      }
      for (int node = 1; node <= 3; node++) {
        assertThat(clusterView(cluster, node).path("epoch").asLong()).isEqualTo(3);
      }
    }
  }
}
