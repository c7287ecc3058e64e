package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.ProcessCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 25, part 2: online snapshots on real processes. Three nodes under a quorum writer each take
 * a snapshot in seconds while the writer sees no error; the snapshot is listed, has its manifest
 * under the data directory, shows in the metrics, and is deleted on request. {@code kvorum-node
 * snapshot} takes one on every member, names a member that did not, and with {@code --prefix
 * --keep} deletes its series' older snapshots on every member and no other.
 */
class SnapshotProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path work;

  /** Writes {@code count} keys {@code prefix0}… through node-0, in batches. */
  private static void preload(ProcessCluster cluster, String prefix, int count) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      values.put(prefix + i, ("v" + i).getBytes(StandardCharsets.UTF_8));
    }
    cluster.putAll(0, values, Consistency.DEFAULT);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aSnapshotUnderAWriterAnswersInSecondsAndTheWriterSeesNoError() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      preload(cluster, "before/", 2000);
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong written = new AtomicLong();
      List<String> errors = new ArrayList<>();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (KvorumClient client = cluster.client(1)) {
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

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theSnapshotCommandTakesOneOnEveryMemberAndNamesAMemberThatDidNot() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      preload(cluster, "k", 300);
      String[] addresses = {
        "--node", "node-1=127.0.0.1:" + cluster.httpPort(1),
        "--node", "node-2=127.0.0.1:" + cluster.httpPort(2)
      };
      Run all = run(addresses, "--port", String.valueOf(cluster.httpPort(0)), "--name", "all");
      assertThat(all.exit()).as(all.err()).isZero();
      for (int i = 0; i < 3; i++) {
        Path taken = work.resolve("node-" + i).resolve("snapshots").resolve("all");
        assertThat(taken.resolve("manifest.json")).isRegularFile();
        assertThat(all.out()).contains("node-" + i + "  " + taken.toAbsolutePath());
      }
      assertThat(all.err()).contains("taken on all 3 members");

      // A series as the chart's CronJob keeps it: the older of it go, the operator's "all" stays.
      String port = String.valueOf(cluster.httpPort(0));
      assertThat(run(addresses, "--port", port, "--name", "nightly-20200101-000000").exit())
          .isZero();
      Run kept = run(addresses, "--port", port, "--prefix", "nightly-", "--keep", "1");
      assertThat(kept.exit()).as(kept.err()).isZero();
      for (int i = 0; i < 3; i++) {
        Path snapshots = work.resolve("node-" + i).resolve("snapshots");
        try (var names = Files.list(snapshots)) {
          assertThat(names.map(p -> p.getFileName().toString()))
              .hasSize(2)
              .contains("all")
              .anyMatch(
                  n -> n.matches("nightly-2\\d{7}-\\d{6}") && n.compareTo("nightly-2021") > 0);
        }
        assertThat(kept.out()).contains("node-" + i + "  deleted nightly-20200101-000000");
      }

      cluster.node(2).kill();
      Run partial =
          run(addresses, "--port", String.valueOf(cluster.httpPort(0)), "--name", "partial");
      assertThat(partial.exit()).isEqualTo(1);
      assertThat(partial.err())
          .contains("node-2 did not take it")
          .contains("snapshot partial is missing on node-2 (2 of 3 members took it)");
      assertThat(work.resolve("node-0").resolve("snapshots").resolve("partial")).isDirectory();

      Run again = run(addresses, "--port", String.valueOf(cluster.httpPort(0)), "--name", "all");
      assertThat(again.exit()).isEqualTo(1);
      assertThat(again.err()).contains("node-0 did not take it").contains("409");
    }
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(String[] addresses, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KvorumNode.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of("snapshot", "--host", "127.0.0.1"));
    all.addAll(List.of(addresses));
    all.addAll(List.of(args));
    int exit = cli.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
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
