package io.kvorum.node.cli.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kvorum.node.cli.KvorumNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kvorum-node status} and {@code kvorum-node decommission} as an operator runs them: against
 * a fake node answering what SPEC §8 says (a change in progress, streaming, 202, 409), and against
 * a node that is not there; {@code status} against a real cluster is {@link
 * AdminCommandsClusterScenarios}.
 */
@Timeout(60)
class AdminCommandsTest {
  /** What a node answers /v0/cluster with while kvorum-3 joins (the contract of issue 13). */
  private static final String JOINING =
      """
      {"node":"kvorum-0","ready":true,"epoch":7,
       "change":{"kind":"join","node":"kvorum-3","epoch":7,"started":"2026-11-26T06:40:00Z",
                 "phase":"started"},
       "nodes":[
        {"id":"kvorum-0","address":"kvorum-0.kvorum-headless:9090","self":true,"state":"up",
         "detail":"self","hintsPending":0,"records":1234567,"diskUsedBytes":1288490188,
         "streaming":{"recordsSent":1500,"bytesSent":3145728,"recordsReceived":0,
                      "bytesReceived":0,"done":false}},
        {"id":"kvorum-1","address":"kvorum-1.kvorum-headless:9090","self":false,"state":"down",
         "detail":"connection transient_failure","hintsPending":1523,"records":1200000,
         "diskUsedBytes":1200000000},
        {"id":"kvorum-3","address":"kvorum-3.kvorum-headless:9090","self":false,"state":"joining",
         "detail":"circuit closed","hintsPending":0,"records":1500,"diskUsedBytes":512,
         "streaming":{"recordsSent":0,"bytesSent":0,"recordsReceived":1500,
                      "bytesReceived":3145728,"done":true}}]}
      """;

  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void statusPrintsEveryMemberWithItsStateLoadHintsAndStreaming() throws IOException {
    int port = fakeNode("/v0/cluster", 200, JOINING);

    Run run = run("status", "--host", "127.0.0.1", "--port", String.valueOf(port));

    assertThat(run.exit()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(requests).containsExactly("GET /v0/cluster");
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).isEqualTo("Cluster as kvorum-0 sees it (epoch 7, 3 members, ready)");
    assertThat(lines.get(1))
        .isEqualTo("Change in progress: join of kvorum-3 (epoch 7), started 2026-11-26T06:40:00Z");
    assertThat(lines)
        .anySatisfy(l -> assertThat(l).matches(" +NODE +STATE +ADDRESS +HTTP +RECORDS.*"));
    assertThat(row(lines, "kvorum-0"))
        .startsWith("*")
        .contains("up", "kvorum-0.kvorum-headless:9090", "1,234,567", "1.20 GiB")
        .endsWith("sent 1,500 records, 3.00 MiB");
    assertThat(row(lines, "kvorum-1")).contains("down", "1,200,000", "1.12 GiB", "1,523");
    assertThat(row(lines, "kvorum-3"))
        .contains("joining", "1,500", "512 B")
        .endsWith("received 1,500 records, 3.00 MiB (done)");
    assertThat(lines).contains("kvorum-1 is down as seen from here: connection transient_failure");
  }

  @Test
  void statusShowsEachMembersZoneAndAMoveInProgressWhoseReadsMoved() throws IOException {
    int port =
        fakeNode(
            "/v0/cluster",
            200,
            """
            {"node":"n1","ready":true,"epoch":9,
             "change":{"kind":"move","node":"n2","zone":"eu-1b","epoch":9,
                       "started":"2026-11-26T06:40:00Z","phase":"reads-moved"},
             "nodes":[
              {"id":"n1","address":"h1:9090","zone":"eu-1a","self":true,"state":"up",
               "hintsPending":0},
              {"id":"n2","address":"h2:9090","self":false,"state":"up","hintsPending":0}]}
            """);

    Run run = run("status", "--port", String.valueOf(port));

    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(1))
        .isEqualTo(
            "Change in progress: move of n2 to zone eu-1b (epoch 9, reads moved), started"
                + " 2026-11-26T06:40:00Z");
    assertThat(lines).anySatisfy(l -> assertThat(l).matches(" +NODE +STATE .* +ZONE +STREAMING"));
    assertThat(row(lines, "n1")).endsWith(" eu-1a");
    assertThat(row(lines, "n2")).doesNotContain("eu-1");
  }

  @Test
  void statusOfANodeOfAnEarlierVersionShowsWhatItDoesNotReportAsUnknown() throws IOException {
    int port =
        fakeNode(
            "/v0/cluster",
            200,
            """
            {"node":"n1","ready":false,"nodes":[
             {"id":"n1","address":"127.0.0.1:9090","self":true,"state":"up","hintsPending":0}]}
            """);

    Run run = run("status", "--port", String.valueOf(port));

    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).isEqualTo("Cluster as n1 sees it (1 member, not ready)");
    assertThat(row(lines, "n1")).matches("\\* +n1 +up +127\\.0\\.0\\.1:9090 +- +- +- +0");
  }

  @Test
  void statusOfANodeThatIsNotThereIsOneLineAndExitCodeOne() throws IOException {
    int port = closedPort();

    Run run = run("status", "--host", "127.0.0.1", "--port", String.valueOf(port));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines().toList())
        .containsExactly(
            "kvorum-node status: cannot reach the node at http://127.0.0.1:"
                + port
                + ": connection refused (is the node running? --host and --port name another)");
  }

  @Test
  void decommissionStartedIsExitCodeZero() throws IOException {
    int port =
        fakeNode(DecommissionCommand.PATH, 202, "{\"status\":\"started\",\"node\":\"kvorum-3\"}");

    Run run = run("decommission", "--port", String.valueOf(port));

    assertThat(run.exit()).isZero();
    assertThat(requests).containsExactly("POST /v0/cluster/decommission");
    assertThat(run.out())
        .startsWith(
            "kvorum-node decommission: kvorum-3 (http://localhost:" + port + ") is leaving");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void decommissionRefusedForAChangeInProgressSaysWhichAndExitsOne() throws IOException {
    int port =
        fakeNode(
            DecommissionCommand.PATH,
            409,
            """
            {"type":"about:blank","title":"Conflict","status":409,
             "detail":"a membership change is in progress: join of kvorum-4 (epoch 8)"}
            """);

    Run run = run("decommission", "--host", "127.0.0.1", "--port", String.valueOf(port));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines().toList())
        .containsExactly(
            "kvorum-node decommission: refused, a membership change is in progress: join of"
                + " kvorum-4 (epoch 8) (409); try again once it is over");
  }

  @Test
  void decommissionOfANodeThatIsNotThereIsOneLineAndExitCodeOne() throws IOException {
    int port = closedPort();

    Run run = run("decommission", "--port", String.valueOf(port));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("kvorum-node decommission: cannot reach the node at http://localhost:" + port);
  }

  @Test
  void removeAsksTheLiveNodeToRemoveTheDeadOne() throws IOException {
    int port = fakeNode(RemoveCommand.PATH, 202, "{\"status\":\"started\",\"node\":\"kvorum-0\"}");

    Run run = run("remove", "--port", String.valueOf(port), "kvorum-3");

    assertThat(run.exit()).isZero();
    assertThat(requests).containsExactly("POST /v0/cluster/remove?node=kvorum-3");
    assertThat(run.out())
        .startsWith(
            "kvorum-node remove: kvorum-0 (http://localhost:" + port + ") removes kvorum-3");
  }

  @Test
  void removeOfANodeThatDiedJoiningSaysItsJoinWasAborted() throws IOException {
    int port =
        fakeNode(
            RemoveCommand.PATH,
            200,
            """
            {"status":"aborted","node":"kvorum-0","change":{"kind":"join","node":"kvorum-3"}}
            """);

    Run run = run("remove", "--port", String.valueOf(port), "kvorum-3");

    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .startsWith(
            "kvorum-node remove: kvorum-0 (http://localhost:"
                + port
                + ") aborted the join of kvorum-3, which was down: the cluster keeps the members"
                + " it had.");
  }

  @Test
  void removeOfAnUnknownNodeSaysWhatTheNodeAnswered() throws IOException {
    int port =
        fakeNode(
            RemoveCommand.PATH,
            400,
            """
            {"title":"Bad Request","status":400,"detail":"kvorum-9 is not a member"}
            """);

    Run run = run("remove", "--port", String.valueOf(port), "kvorum-9");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines().toList())
        .containsExactly(
            "kvorum-node remove: the node at http://localhost:"
                + port
                + " answered 400 Bad Request: kvorum-9 is not a member");
  }

  @Test
  void removeWithoutANodeIsExitCodeTwo() {
    Run run = run("remove");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("NODE");
  }

  @Test
  void aBadPortIsExitCodeTwo() {
    Run run = run("status", "--port", "http");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--port");
  }

  static String row(List<String> lines, String id) {
    return lines.stream()
        .filter(l -> l.matches("[* ] +" + id + " .*"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + id + " in " + lines));
  }

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = KvorumNode.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private int fakeNode(String path, int status, String body) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
          byte[] bytes = body.getBytes(UTF_8);
          boolean known = exchange.getRequestURI().getPath().equals(path);
          exchange
              .getResponseHeaders()
              .set("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
          exchange.sendResponseHeaders(known ? status : 400, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    return server.getAddress().getPort();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
