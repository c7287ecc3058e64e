package io.kvorum.node.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvorum-node node-zone}, the chart's init container, against a fake Kubernetes API server:
 * it asks for its node with the service account's token and writes the zone label.
 */
@Timeout(30)
class NodeZoneCommandTest {
  private static final String NODE =
      """
      {"kind":"Node","apiVersion":"v1","metadata":{"name":"worker-7","labels":{
        "kubernetes.io/hostname":"worker-7","topology.kubernetes.io/zone":"eu-west-1b",
        "example.com/rack":"r12"}}}
      """;

  @TempDir Path dir;
  private HttpServer server;
  private final List<String> asked = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private String apiServer(int status, String body) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          asked.add(
              exchange.getRequestURI().getPath()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization"));
          byte[] bytes = body.getBytes(UTF_8);
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private int run(String... args) throws IOException {
    Files.writeString(dir.resolve("token"), "the-token\n");
    CommandLine command = KvorumNode.commandLine();
    command.setOut(new PrintWriter(new StringWriter()));
    command.setErr(new PrintWriter(new StringWriter()));
    return command.execute(args);
  }

  @Test
  void writesTheZoneLabelOfItsNodeAskedWithTheAccountsToken() throws IOException {
    String api = apiServer(200, NODE);
    Path out = dir.resolve("zone");

    int exit =
        run(
            "node-zone",
            "--node=worker-7",
            "--out=" + out,
            "--api-server=" + api,
            "--service-account=" + dir);

    assertThat(exit).isZero();
    assertThat(Files.readString(out)).isEqualTo("eu-west-1b");
    assertThat(asked).containsExactly("/api/v1/nodes/worker-7 Bearer the-token");
  }

  @Test
  void readsAnotherLabelWhenToldAndWritesNothingForANodeWithoutIt() throws IOException {
    String api = apiServer(200, NODE);
    Path rack = dir.resolve("rack");
    Path none = dir.resolve("none");

    assertThat(
            run(
                "node-zone",
                "--node=worker-7",
                "--label=example.com/rack",
                "--out=" + rack,
                "--api-server=" + api,
                "--service-account=" + dir))
        .isZero();
    assertThat(
            run(
                "node-zone",
                "--node=worker-7",
                "--label=example.com/zone",
                "--out=" + none,
                "--api-server=" + api,
                "--service-account=" + dir))
        .isZero();

    assertThat(Files.readString(rack)).isEqualTo("r12");
    assertThat(Files.readString(none)).isEmpty();
  }

  @Test
  void failsWhenTheApiServerRefuses() throws IOException {
    String api = apiServer(403, "{\"kind\":\"Status\",\"reason\":\"Forbidden\"}");
    Path out = dir.resolve("zone");

    int exit =
        run(
            "node-zone",
            "--node=worker-7",
            "--out=" + out,
            "--api-server=" + api,
            "--service-account=" + dir);

    assertThat(exit).isEqualTo(ExitCodes.FAILURE);
    assertThat(out).doesNotExist();
  }
}
