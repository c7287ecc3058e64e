package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Zones through the flags (SPEC §1 {@code --zone}, §3) on real node processes. */
class ZoneProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int KEYS = 200;
  @TempDir Path work;

  private static String get(ProcessCluster cluster, int node, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort(node) + path))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void sixNodesInThreeZonesKeepQuorumForEveryKeyWhenAWholeZoneIsKilled() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 6).quickMembershipChanges()) {
      for (int i = 0; i < 6; i++) {
        cluster.flags(i, "--zone", "zone-" + (i / 2));
      }
      cluster.start();
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonNode view = JSON.readTree(get(cluster, 5, "/v0/cluster"));
                assertThat(view.path("change").isMissingNode()).isTrue();
                assertThat(view.path("nodes").findValuesAsText("zone"))
                    .containsExactly("zone-0", "zone-0", "zone-1", "zone-1", "zone-2", "zone-2");
              });
      assertThat(get(cluster, 3, "/metrics")).contains("zone=\"zone-1\"");
      try (KvorumClient kv = cluster.client(0)) {
        for (int i = 0; i < KEYS; i++) {
          kv.put("k" + i, "v" + i);
        }
      }

      cluster.node(0).kill();
      cluster.node(1).kill();

      for (int node = 2; node < 6; node++) {
        try (KvorumClient kv = cluster.client(node)) {
          for (int i = node - 2; i < KEYS; i += 4) {
            assertThat(kv.getUtf8("k" + i)).as("k%d through node-%d", i, node).hasValue("v" + i);
            kv.put("k" + i, "w" + i);
          }
        }
      }
      try (KvorumClient kv = cluster.client(4)) {
        for (int i = 0; i < KEYS; i++) {
          assertThat(kv.getUtf8("k" + i)).as("k%d", i).hasValue("w" + i);
        }
      }
    }
  }
}
