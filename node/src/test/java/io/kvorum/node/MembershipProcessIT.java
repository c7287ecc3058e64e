package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.ProcessCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 13 on real processes: a node joins a running cluster through {@code --join} and leaves it
 * by {@code kvorum-node decommission --wait}, which sums the change up once the node left (the node
 * exits 0, and exits 2 if started again on its data), and no key is lost. The routine path (a clean
 * start, a join, a decommission, a SIGTERM) logs no WARN or ERROR. A node killed mid-join or
 * mid-decommission is the simulator's ({@code MEMBERSHIP}: kills strike joining and leaving nodes,
 * and every change must end with each key on its owners alone).
 */
class MembershipProcessIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String VALUE = "v".repeat(200);

  @TempDir Path work;

  private static int post(int httpPort, String path) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static JsonNode cluster(int httpPort) throws Exception {
    return JSON.readTree(
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v0/cluster"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }

  private static long streamed(int httpPort, String field) {
    try {
      return cluster(httpPort).path("nodes").findValues("streaming").stream()
          .mapToLong(s -> s.path(field).asLong())
          .sum();
    } catch (Exception e) {
      return 0;
    }
  }

  private static void preload(ProcessCluster cluster, int keys) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < keys; i++) {
      values.put("key/" + i, (VALUE + i).getBytes(StandardCharsets.UTF_8));
    }
    cluster.putAll(0, values, Consistency.DEFAULT);
  }

  private static void assertEveryKey(KvorumClient kv, int keys) {
    for (int i = 0; i < keys; i++) {
      assertThat(kv.getUtf8("key/" + i)).as("key/" + i).hasValue(VALUE + i);
    }
  }

  /** Launches node-3, joining through node-0, with the flags given. */
  private NodeProcess joiner(ProcessCluster cluster, int http, int grpc, String... flags) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "--node-id",
                "node-3",
                "--http-host",
                "127.0.0.1",
                "--http-port",
                String.valueOf(http),
                "--grpc-port",
                String.valueOf(grpc),
                "--data-dir",
                work.resolve("node-3").toString(),
                "--advertise-host",
                "127.0.0.1",
                "--join",
                "127.0.0.1:" + cluster.grpcPort(0)));
    args.addAll(java.util.List.of(flags));
    return NodeProcess.launch(work.resolve("logs"), http, Map.of(), args.toArray(String[]::new));
  }

  private static void awaitReady(NodeProcess node, Duration within) {
    try (KvorumClient kv = node.client()) {
      Awaitility.await()
          .atMost(within)
          .pollInterval(Duration.ofMillis(200))
          .failFast("the node exited: " + node.stderr(), () -> !node.isAlive())
          .until(kv::ready);
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aNodeJoinsThenLeavesByDecommissionAndMayNotStartAgain() throws Exception {
    int keys = 500;
    // Sweeps every second: one may be running when the SIGTERM comes, and must end quietly.
    try (ProcessCluster cluster = new ProcessCluster(work, 3, "--sweep-interval", "1s").start()) {
      preload(cluster, keys);
      int http = NodeProcess.freePort();
      int grpc = NodeProcess.freePort();
      // A slow stream (its records take seconds), so that the operator's wait sees it move.
      try (NodeProcess joined = joiner(cluster, http, grpc, "--repair-rate", "32KiB")) {
        awaitReady(joined, Duration.ofSeconds(60));
        JsonNode view = cluster(http);
        assertThat(view.path("nodes")).hasSize(4);
        assertThat(view.path("change").isMissingNode()).isTrue();
        try (KvorumClient kv = joined.client()) {
          assertEveryKey(kv, keys);
        }

        // Issue 27: the operator's command waits for the decommission to end and sums it up; the
        // leaving node exits meanwhile, so the end is read from another member.
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = KvorumNode.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        java.util.List<String> args =
            new java.util.ArrayList<>(
                java.util.List.of(
                    "decommission",
                    "--wait",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    String.valueOf(http)));
        for (int node = 0; node < 3; node++) {
          args.add("--node=node-" + node + "=127.0.0.1:" + cluster.httpPort(node));
        }
        int exit = cli.execute(args.toArray(String[]::new));
        System.out.printf("decommission --wait: exit %d%n%s%s", exit, out, err);
        assertThat(exit).as("decommission --wait; stderr: %s", err).isZero();
        assertThat(out.toString())
            .contains("kvorum-node decommission: node-3 (http://127.0.0.1:" + http + ") is leaving")
            .containsPattern(
                "kvorum-node decommission: node-3 left the cluster( \\(as node-\\d sees it\\))?"
                    + " in \\d+:\\d\\d: [1-9][\\d,]* copies of records streamed");
        assertThat(joined.awaitExit()).isZero();
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> cluster(cluster.httpPort(1)).path("nodes").size() == 3);
        try (KvorumClient kv = cluster.client(2)) {
          assertEveryKey(kv, keys);
        }
        assertQuiet(joined);
      }
      try (NodeProcess again = joiner(cluster, http, grpc)) {
        assertThat(again.awaitExit()).isEqualTo(2);
        assertThat(again.stderr())
            .contains("decommissioned")
            .contains("wipe its data directory")
            .hasLineCount(1);
      }
      for (int node = 0; node < 3; node++) {
        assertThat(cluster.node(node).terminate()).isZero();
        assertQuiet(cluster.node(node));
      }
    }
  }

  /**
   * Issue 27: a clean start, a join, a decommission and a SIGTERM are all routine, so a node logs
   * none of them as a warning or an error (an operator reads each WARN as a problem).
   */
  private static void assertQuiet(NodeProcess node) {
    assertThat(node.stdout().lines().filter(line -> line.matches("\\S+ (WARN|ERROR) .*")))
        .as("WARN and ERROR lines in a node's log")
        .isEmpty();
    assertThat(node.stderr()).as("a node's stderr").isEmpty();
  }
}
