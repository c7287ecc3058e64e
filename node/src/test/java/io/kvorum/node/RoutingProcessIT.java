package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientBuilder;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The placement-aware client on three node processes, node-0 in zone {@code a}, node-1 and node-2
 * in zone {@code b}, two copies of each key (so every key has node-0 and one node of zone b as its
 * replicas): a client in zone a sends every request straight to node-0 (no node coordinates a key
 * it holds no copy of, by {@code kvorum_coordinated_requests_total}); with node-0 SIGKILLed it
 * fails over to each key's replica in zone b, again without a forwarded request, and loses nothing;
 * with routing off, about half of them are forwarded.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RoutingProcessIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int KEYS = 150;
  @TempDir Path work;

  @Test
  void requestsGoStraightToAReplicaInTheClientsZoneAndFailOverWhenItDies() throws Exception {
    try (ProcessCluster cluster =
        new ProcessCluster(work, 3, "--replication-factor", "2").quickMembershipChanges()) {
      cluster.flags(0, "--zone", "a").flags(1, "--zone", "b").flags(2, "--zone", "b").start();
      awaitViewsComplete(cluster);
      Consistency oneOfTwo = Consistency.of(1, 2);
      try (KvorumClient kv = client(cluster).zone("a").build()) {
        awaitRouting(kv);
        double[][] before = counts(cluster, 0, 1, 2);
        for (int i = 0; i < KEYS; i++) {
          kv.put("k" + i, "v" + i);
          assertThat(kv.getUtf8("k" + i)).hasValue("v" + i);
        }
        double[][] after = counts(cluster, 0, 1, 2);
        assertThat(coordinated(after, before, 0))
            .as("requests node-0 coordinated")
            .isEqualTo(2 * KEYS);
        assertThat(forwarded(after, before)).as("forwarded requests").isZero();
        assertThat(coordinated(after, before, 1) + coordinated(after, before, 2)).isZero();

        cluster.node(0).kill();
        before = counts(cluster, 1, 2);
        for (int i = 0; i < KEYS; i++) {
          assertThat(kv.get(("k" + i).getBytes(), oneOfTwo)).as("k%d", i).isPresent();
          kv.put(("k" + i).getBytes(), ("w" + i).getBytes(), oneOfTwo);
        }
        after = counts(cluster, 1, 2);
        assertThat(forwarded(after, before)).as("forwarded requests with node-0 dead").isZero();
        assertThat(coordinated(after, before, 1) + coordinated(after, before, 2))
            .isEqualTo(2 * KEYS);
      }

      try (KvorumClient kv = client(cluster).routing(false).build()) {
        double[][] before = counts(cluster, 1, 2);
        for (int i = 0; i < KEYS; i++) {
          assertThat(kv.get(("k" + i).getBytes(), oneOfTwo)).hasValue(("w" + i).getBytes());
        }
        double[][] after = counts(cluster, 1, 2);
        assertThat(kv.routing()).isFalse();
        // Each key has one replica of the two nodes up: half the requests reach the other one.
        assertThat(forwarded(after, before)).isBetween(KEYS * 0.3, KEYS * 0.7);
      }
    }
  }

  private static KvorumClientBuilder client(ProcessCluster cluster) {
    KvorumClientBuilder builder =
        KvorumClient.builder().backOff(Duration.ofMillis(20), Duration.ofMillis(200));
    for (int i = 0; i < 3; i++) {
      builder.seed("127.0.0.1", cluster.httpPort(i));
    }
    return builder;
  }

  /**
   * Every node's view lists the three members with their zones and HTTP addresses, none down: the
   * cluster state has gone round. A client's routes come from the view one node answers, kept until
   * its next discovery; from a view taken before that, a member without its zone or address is
   * routed around (any node coordinates any key, so nothing fails, but this test counts hops).
   */
  private static void awaitViewsComplete(ProcessCluster cluster) {
    Awaitility.await("every node's view complete")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              for (int i = 0; i < 3; i++) {
                JsonNode nodes =
                    JSON.readTree(
                            HTTP.send(
                                    HttpRequest.newBuilder(
                                            URI.create(
                                                "http://127.0.0.1:"
                                                    + cluster.httpPort(i)
                                                    + "/v0/cluster"))
                                        .build(),
                                    HttpResponse.BodyHandlers.ofString())
                                .body())
                        .path("nodes");
                if (nodes.size() != 3) {
                  return false;
                }
                for (JsonNode node : nodes) {
                  if (node.path("zone").asText().isEmpty()
                      || node.path("httpAddress").asText().isEmpty()
                      || !"up".equals(node.path("state").asText())) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  /** The client learns the members and the placement in the background, from its first call. */
  private static void awaitRouting(KvorumClient kv) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              kv.get("warm-up".getBytes());
              return kv.routing();
            });
  }

  /**
   * Each node's {@code kvorum_coordinated_requests_total}, {@code [node][0]} not forwarded, {@code
   * [node][1]} forwarded; zeros for the nodes not asked.
   */
  private static double[][] counts(ProcessCluster cluster, int... nodes) throws Exception {
    double[][] counts = new double[3][2];
    for (int node : nodes) {
      String metrics =
          HTTP.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + cluster.httpPort(node) + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      for (int forwarded = 0; forwarded < 2; forwarded++) {
        Matcher line =
            Pattern.compile(
                    "(?m)^kvorum_coordinated_requests_total\\{[^}]*forwarded=\""
                        + (forwarded == 1)
                        + "\"[^}]*} (\\S+)$")
                .matcher(metrics);
        assertThat(line.find()).as("kvorum_coordinated_requests_total in /metrics").isTrue();
        counts[node][forwarded] = Double.parseDouble(line.group(1));
      }
    }
    return counts;
  }

  /** The requests {@code node} coordinated between the two counts, as one of the key's replicas. */
  private static double coordinated(double[][] after, double[][] before, int node) {
    return after[node][0] - before[node][0];
  }

  /** The requests forwarded between the two counts, by any node. */
  private static double forwarded(double[][] after, double[][] before) {
    double sum = 0;
    for (int node = 0; node < 3; node++) {
      sum += after[node][1] - before[node][1];
    }
    return sum;
  }
}
