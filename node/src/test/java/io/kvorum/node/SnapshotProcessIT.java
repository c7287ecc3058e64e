package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, part 2: online snapshots on real processes. Three nodes under a quorum writer each take
 * a snapshot in seconds while the writer sees no error; the snapshot is listed, has its manifest
 * under the data directory, shows in the metrics, and is deleted on request.
 */
class SnapshotProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path work;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aSnapshotUnderAWriterAnswersInSecondsAndTheWriterSeesNoError() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      for (int i = 0; i < 2000; i++) {
        cluster.client(0).put("before/" + i, "v" + i);
      }
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong written = new AtomicLong();
      List<String> errors = new ArrayList<>();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    KvorumClient client = cluster.client(1);
                    while (writing.get()) {
                      long n = written.get();
                      try {
                        client.put("during/" + n, "v" + n); // ack=2 from=3
                        written.incrementAndGet();
                      } catch (RuntimeException e) {
                        synchronized (errors) {
                          errors.add(e.toString());
                        }
                      }
                    }
                  });
      HttpClient http = HttpClient.newHttpClient();
      try {
        awaitWrites(written, 200);
        for (int i = 0; i < 3; i++) {
          long before = written.get();
          long started = System.nanoTime();
          HttpResponse<String> taken =
              http.send(
                  request(cluster, i, "?name=under-load")
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          Duration took = Duration.ofNanos(System.nanoTime() - started);
          assertThat(taken.statusCode()).as(taken.body()).isEqualTo(201);
          assertThat(took).isLessThan(Duration.ofSeconds(10));
          JsonNode manifest = JSON.readTree(taken.body());
          assertThat(manifest.path("node").asText()).isEqualTo("node-" + i);
          assertThat(manifest.path("records").asLong()).isPositive();
          Path dir = work.resolve("node-" + i).resolve("snapshots").resolve("under-load");
          assertThat(Path.of(manifest.path("path").asText())).isEqualTo(dir.toAbsolutePath());
          assertThat(dir.resolve("manifest.json")).isRegularFile();
          assertThat(dir.resolve("CURRENT")).isRegularFile();
          awaitWrites(written, before + 50); // the writer went on during and after it
        }
      } finally {
        writing.set(false);
        writer.join();
      }
      assertThat(errors).isEmpty();

      HttpResponse<String> listed =
          http.send(request(cluster, 0, "").GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(listed.body()).path("snapshots").findValuesAsText("name"))
          .containsExactly("under-load");
      String metrics =
          http.send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + cluster.httpPort(0) + KvorumApi.PATH_METRICS))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics).containsPattern("(?m)^kvorum_snapshots\\{[^}]*\\} 1\\.0$");

      HttpResponse<Void> deleted =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:"
                              + cluster.httpPort(0)
                              + KvorumApi.PATH_SNAPSHOTS
                              + "/under-load"))
                  .DELETE()
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      assertThat(deleted.statusCode()).isEqualTo(204);
      assertThat(work.resolve("node-0").resolve("snapshots").resolve("under-load")).doesNotExist();
      assertThat(Files.isDirectory(work.resolve("node-1").resolve("snapshots"))).isTrue();
    }
  }

  private static HttpRequest.Builder request(ProcessCluster cluster, int node, String query) {
    return HttpRequest.newBuilder(
            URI.create(
                "http://127.0.0.1:" + cluster.httpPort(node) + KvorumApi.PATH_SNAPSHOTS + query))
        .timeout(Duration.ofSeconds(60));
  }

  private static void awaitWrites(AtomicLong written, long atLeast) {
    Awaitility.await("writes acknowledged")
        .atMost(Duration.ofSeconds(60))
        .until(() -> written.get() >= atLeast);
  }
}
