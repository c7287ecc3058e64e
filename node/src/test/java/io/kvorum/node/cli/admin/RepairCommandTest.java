package io.kvorum.node.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.cli.admin.AdminCommandsTest.Run;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kvorum-node repair} against a fake node whose {@code /v0/cluster} shows each peer's last
 * anti-entropy exchange (SPEC §7): it starts a round ({@code POST /v0/repair}); with {@code --wait}
 * it waits until an exchange with every peer that is up finished after the request, then prints a
 * line per peer; a peer that is down is named, exit code 4. A real round: {@code
 * AntiEntropyProcessIT}.
 */
@Timeout(60)
class RepairCommandTest {
  private static final String STARTED = "{\"status\":\"started\",\"node\":\"n0\"}";
  private static final String BEFORE = "2026-11-27T10:00:00Z";

  private FakeNode node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void waitEndsOnceEveryPeerFinishedAnExchangeAfterTheRequest() throws IOException {
    node =
        new FakeNode()
            .post(202, STARTED)
            .views(
                n ->
                    view(
                        peer("n1", "up", n >= 2 ? "2026-11-27T10:05:01Z" : BEFORE, n >= 2 ? 7 : 0),
                        peer(
                            "n2", "up", n >= 4 ? "2026-11-27T10:05:03Z" : BEFORE, n >= 4 ? 5 : 0)));

    Run run = run("repair", "--wait", "--host", "127.0.0.1", "--port", port());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(node.requests).contains("POST /v0/repair");
    assertThat(node.viewsAsked()).isGreaterThanOrEqualTo(5);
    assertThat(run.out())
        .contains(
            "kvorum-node repair: n0 (http://127.0.0.1:"
                + port()
                + ") started a full anti-entropy round with its 2 peers",
            "n1  repaired: 7 records moved, finished 2026-11-27T10:05:01Z",
            "n2  repaired: 5 records moved, finished 2026-11-27T10:05:03Z",
            "kvorum-node repair: every peer (2) repaired in 0:0");
    assertThat(run.out()).contains(", 12 records moved");
  }

  @Test
  void aPeerThatIsDownIsNamedAndTheExitCodeIsFour() throws IOException {
    node =
        new FakeNode()
            .post(202, STARTED)
            .views(
                n ->
                    view(
                        peer("n1", "up", n >= 2 ? "2026-11-27T10:05:01Z" : BEFORE, 3),
                        peer("n2", "down", BEFORE, 0)));

    Run run = run("repair", "--wait", "--host", "127.0.0.1", "--port", port());

    assertThat(run.exit()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(run.out())
        .contains(
            "n1  repaired: 3 records moved",
            "n2  not repaired: down (connection refused); last exchange: n2 is not available");
    assertThat(run.err())
        .contains(
            "kvorum-node repair: 1 of 2 peers repaired in 0:0",
            "not repaired, down: n2. Anti-entropy repairs them once they are back.");
  }

  @Test
  void withoutWaitItStartsTheRoundAndReturns() throws IOException {
    node = new FakeNode().post(202, STARTED);

    Run run = run("repair", "--host", "127.0.0.1", "--port", port());

    assertThat(run.exit()).isZero();
    assertThat(node.requests).containsExactly("POST /v0/repair");
    assertThat(run.out()).contains("started a full anti-entropy round with its peers");
  }

  @Test
  void aRefusalIsExitCodeOneWithTheNodesWords() throws IOException {
    node =
        new FakeNode()
            .post(403, "{\"title\":\"Forbidden\",\"status\":403,\"detail\":\"needs admin\"}");

    Run run = run("repair", "--host", "127.0.0.1", "--port", port());

    assertThat(run.exit()).isEqualTo(ExitCodes.FAILURE);
    assertThat(run.err()).contains("answered 403 Forbidden: needs admin");
  }

  @Test
  void aNodeThatStopsAnsweringMidWaitIsExitCodeFour() throws IOException {
    node = new FakeNode().post(202, STARTED);
    FakeNode stopping = node;
    node.views(
        n -> {
          if (n == 3) {
            new Thread(stopping::stop).start();
          }
          return view(peer("n1", "up", BEFORE, 0));
        });

    Run run = run("repair", "--wait", "--host", "127.0.0.1", "--port", port());

    assertThat(run.exit()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(run.err())
        .contains("has not answered for 1 s")
        .contains("whether the round completed is unknown");
  }

  private static String view(String... peers) {
    return "{\"node\":\"n0\",\"epoch\":3,\"nodes\":[{\"id\":\"n0\",\"self\":true,\"state\":\"up\"},"
        + String.join(",", peers)
        + "]}";
  }

  private static String peer(String id, String state, String finished, long repaired) {
    return ("{\"id\":\"%s\",\"self\":false,\"state\":\"%s\"%s,\"repair\":{\"lastRoundFinished\":"
            + "\"%s\",\"recordsRepaired\":%d,\"recordsRepairedTotal\":%d%s}}")
        .formatted(
            id,
            state,
            state.equals("down") ? ",\"detail\":\"connection refused\"" : "",
            finished,
            repaired,
            repaired,
            state.equals("down") ? ",\"lastError\":\"" + id + " is not available\"" : "");
  }

  private String port() {
    return String.valueOf(node.port());
  }

  /** Runs {@code args}, polling every 20 ms and giving up after 1 s of silence. */
  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = KvorumNode.commandLine();
    RepairCommand command = cli.getSubcommands().get("repair").getCommand();
    command.poll = Duration.ofMillis(20);
    command.giveUp = Duration.ofSeconds(1);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(List.of(args).toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
