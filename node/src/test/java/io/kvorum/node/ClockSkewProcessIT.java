package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, part 2, with real processes: node A's wall clock an hour ahead of B's and C's (the
 * test-only {@code -Dkvorum.clock.skew}, which shifts the node's wall clock as libfaketime would).
 * A write through A, a later write through B, a delete through B: the later write and the delete
 * are never lost.
 */
class ClockSkewProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final int A = 0;
  private static final int B = 1;

  @TempDir Path work;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aNodeAnHourAheadNeverMakesALaterWriteOrDeleteLose() throws Exception {
    try (ProcessCluster cluster =
        new ProcessCluster(work, 3)
            .environment(A, Map.of("JAVA_TOOL_OPTIONS", "-Dkvorum.clock.skew=3600s"))
            .start(A)) {
      KvorumClient a = cluster.client(A);
      // A caught up: what keeps it from being ready is its clock.
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> assertThat(body(send(a, "/v0/status"))).contains("ahead of 2 of its 2 peers"));
      assertThat(a.ready()).isFalse();

      for (int i = 0; i < 20; i++) {
        String key = "skew-" + i;
        KvorumClientException refused =
            catchThrowableOfType(
                KvorumClientException.class,
                () -> a.put(utf8(key), utf8("through A"), Consistency.of(2, 3)));
        assertThat(refused).as("the write through A").isNotNull();
        assertThat(refused.status()).as(refused.detail()).isEqualTo(503);
        JsonNode problem = JSON.readTree(refused.body());
        assertThat(problem.path("clockOffsetMillis").asLong())
            .isBetween(HOUR - 10_000, HOUR + 10_000);
        assertThat(problem.path("maxClockOffsetMillis").asLong()).isEqualTo(500);

        cluster.client(B).put(utf8(key), utf8("later, through B"), Consistency.of(2, 3));
        for (int node = 0; node < 3; node++) {
          assertThat(get(cluster.client(node), key))
              .as("%s read at ack=3 through node-%d", key, node)
              .hasValue("later, through B");
        }
        cluster.client(B).delete(utf8(key), Consistency.of(2, 3));
        for (int node = 0; node < 3; node++) {
          assertThat(get(cluster.client(node), key))
              .as("%s read at ack=3 through node-%d after the delete", key, node)
              .isEmpty();
        }
      }

      JsonNode fromB = JSON.readTree(send(cluster.client(B), "/v0/cluster").body());
      assertThat(fromB.path("ready").asBoolean()).isTrue();
      assertThat(fromB.path("nodes").get(A).path("clockOffsetMillis").asLong())
          .isBetween(HOUR - 10_000, HOUR + 10_000);
      assertThat(body(send(cluster.client(B), "/metrics")))
          .containsPattern(
              "kvorum_clock_offset_seconds\\{[^}]*peer=\"node-0\"[^}]*} 3[56]\\d\\d\\.");
      assertThat(cluster.node(A).stdout() + cluster.node(A).stderr())
          .contains("TEST ONLY: this node's wall clock is shifted by 3600000 ms")
          .contains("refusing to coordinate writes");
    }
  }

  private static Optional<String> get(KvorumClient client, String key) {
    return client.get(utf8(key), Consistency.of(3, 3)).map(v -> new String(v, UTF_8));
  }

  private static HttpResponse<byte[]> send(KvorumClient client, String path) {
    return client.send(HttpRequest.newBuilder(URI.create(client.baseUri() + path)).GET());
  }

  private static String body(HttpResponse<byte[]> response) {
    return new String(response.body(), UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
