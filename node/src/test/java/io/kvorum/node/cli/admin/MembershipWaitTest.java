package io.kvorum.node.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.MembershipChange;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.cli.admin.AdminCommandsTest.Run;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code kvorum-node decommission --wait} and {@code remove --wait} against fake nodes whose {@code
 * /v0/cluster} moves on as SPEC §8 says: the change in progress with the driver's streaming
 * figures, then over. The wait ends with a summary once the node left (asking another member when
 * the decommissioned node is gone), and with exit code 4 and the reason when the change ends
 * otherwise or the nodes stop answering. On real nodes: {@code MembershipProcessIT}.
 */
@Timeout(60)
class MembershipWaitTest {
  private static final String DECOMMISSION_N3 =
      "{\"kind\":\"decommission\",\"node\":\"n3\",\"epoch\":5,\"started\":\"2026-11-27T10:00:00Z\"}";
  private static final String STARTED_N3 =
      "{\"status\":\"started\",\"node\":\"n3\",\"change\":" + DECOMMISSION_N3 + "}";

  private final List<FakeNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(FakeNode::close);
  }

  @Test
  void decommissionWaitEndsWithASummaryOnceAnotherMemberNoLongerHasTheNode() throws Exception {
    FakeNode n3 = node().post(202, STARTED_N3).views(MembershipWaitTest::leavingN3);
    FakeNode n1 = node().views(n -> view("n1", 6, null, member("n1", "up", true, 10, null)));

    CompletableFuture<Run> wait =
        CompletableFuture.supplyAsync(
            () -> run("decommission", "--host", "127.0.0.1", "--port", port(n3), n1Address(n1)));
    Awaitility.await().until(() -> n3.viewsAsked() >= 3);
    n3.stop(); // it left, and its process exited

    Run run = wait.get();
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("kvorum-node decommission: n3 (http://127.0.0.1:" + port(n3) + ") is leaving")
        .containsPattern(
            "kvorum-node decommission: n3 left the cluster \\(as n1 sees it\\) in 0:0\\d:"
                + " [1-9][\\d,]* copies of records streamed \\(\\d+\\.\\d MB, \\d+\\.\\d MB/s\\);"
                + " membership epoch 6\\.");
  }

  @Test
  void aDecommissionedNodeThatStopsAnsweringMidChangeIsExitCodeFour() throws Exception {
    FakeNode n3 = node().post(202, STARTED_N3).views(MembershipWaitTest::leavingN3);
    FakeNode n1 =
        node()
            .views(
                n ->
                    view(
                        "n1",
                        5,
                        DECOMMISSION_N3,
                        member("n1", "up", true, 10, null),
                        member("n3", "down", false, 1000, null)));

    CompletableFuture<Run> wait =
        CompletableFuture.supplyAsync(
            () -> run("decommission", "--host", "127.0.0.1", "--port", port(n3), n1Address(n1)));
    Awaitility.await().until(() -> n3.viewsAsked() >= 2);
    n3.stop(); // crashed while streaming

    Run run = wait.get();
    assertThat(run.exit()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(run.err())
        .contains(
            "kvorum-node decommission: http://127.0.0.1:"
                + port(n3)
                + " has not answered for 1 s; as n1 sees it the decommission of n3 is still in"
                + " progress: it resumes where it stopped once the node is back");
  }

  @Test
  void aChangeThatEndsWithTheNodeStillAMemberIsExitCodeFour() throws IOException {
    FakeNode n3 =
        node()
            .post(202, STARTED_N3)
            .views(
                n ->
                    n < 2
                        ? leavingN3(n)
                        : view("n3", 7, null, member("n3", "up", true, 1000, null)));

    Run run = run("decommission", "--host", "127.0.0.1", "--port", port(n3));

    assertThat(run.exit()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(run.err())
        .contains(
            "the decommission of n3 (epoch 5) ended without n3 leaving the cluster: it was"
                + " aborted or replaced");
  }

  @Test
  void noMemberAnsweringIsExitCodeFourNamingTheOption() throws Exception {
    FakeNode n3 = node().post(202, STARTED_N3).views(MembershipWaitTest::leavingN3);

    CompletableFuture<Run> wait =
        CompletableFuture.supplyAsync(
            () -> run("decommission", "--host", "127.0.0.1", "--port", port(n3)));
    Awaitility.await().until(() -> n3.viewsAsked() >= 2);
    n3.stop();

    Run run = wait.get();
    assertThat(run.exit()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(run.err())
        .contains("and no other member could be asked (--node gives their HTTP addresses)");
  }

  /** A removal is driven by the first member by id that stays: its figures are the progress. */
  @Test
  void removeWaitTakesTheFiguresOfTheNodeThatDrivesIt() throws IOException {
    String removeN0 = "{\"kind\":\"remove\",\"node\":\"n0\",\"epoch\":9}";
    FakeNode n1 =
        node()
            .views(
                n ->
                    view(
                        "n1",
                        9,
                        removeN0,
                        member(
                            "n1", "up", true, 10, "{\"recordsSent\":4000,\"bytesSent\":2000000}"),
                        member("n2", "up", false, 10, null)));
    FakeNode n2 =
        node()
            .post(202, "{\"status\":\"started\",\"node\":\"n2\",\"change\":" + removeN0 + "}")
            .views(
                n ->
                    n < 3
                        ? view(
                            "n2",
                            9,
                            removeN0,
                            member("n0", "down", false, 4000, null),
                            member("n1", "up", false, 10, null),
                            member("n2", "up", true, 10, null))
                        : view(
                            "n2",
                            10,
                            null,
                            member("n1", "up", false, 10, null),
                            member("n2", "up", true, 10, null)));

    Run run = run("remove", "--host", "127.0.0.1", "--port", port(n2), n1Address(n1), "n0");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "kvorum-node remove: n0 left the cluster in 0:0",
            ": 4,000 copies of records streamed (2.0 MB,",
            "membership epoch 10.");
    assertThat(n1.viewsAsked()).isPositive();
  }

  @Test
  void withoutWaitTheCommandReturnsOnceStarted() throws IOException {
    FakeNode n3 = node().post(202, STARTED_N3);

    Run run = AdminCommandsTest.run("decommission", "--port", port(n3));

    assertThat(run.exit()).isZero();
    assertThat(n3.requests).containsExactly("POST /v0/cluster/decommission");
  }

  /** The line a log shows every few seconds: records against the leaving node's, rate, time. */
  @Test
  void theProgressLineCountsTheDriversCopiesAgainstTheLeavingNodesRecords() throws Exception {
    FakeNode n3 = node().views(MembershipWaitTest::leavingN3);
    AtomicLong clock = new AtomicLong();
    // Every look at the clock is a second later: a line is due every few polls.
    LongSupplier nanos = () -> clock.addAndGet(1_000_000_000L);
    StringWriter printed = new StringWriter();
    NodeAddress address =
        CommandLine.populateCommand(
            new NodeAddress(), "--host", "127.0.0.1", "--port", String.valueOf(n3.port()));
    ChangeWatch watch =
        new ChangeWatch(
            "decommission",
            new MembershipChange("decommission", "n3", null, 5, null),
            address,
            new MemberAddresses(),
            new ProgressLine(new PrintWriter(printed), false, nanos),
            nanos,
            Duration.ofMillis(5),
            Duration.ofSeconds(1));
    CompletableFuture<ChangeWatch.Outcome> outcome =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return watch.await();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Awaitility.await().until(() -> !printed.toString().isEmpty());
    n3.stop();

    assertThat(outcome.get().exitCode()).isEqualTo(ExitCodes.UNFINISHED);
    assertThat(printed.toString())
        .containsPattern(
            "decommission of n3: [\\d,]+ of ~1,000 records, \\d+\\.\\d MB/s, [\\d,]+ records/s,"
                + " \\d:\\d\\d left, \\d:\\d\\d so far");
  }

  /** n3's view while it leaves: its streaming to n1 grows by 100 copies a look, up to 900. */
  private static String leavingN3(int n) {
    long sent = Math.min(900, 100L * (n + 1));
    return view(
        "n3",
        5,
        DECOMMISSION_N3,
        member(
            "n1",
            "up",
            false,
            10,
            "{\"recordsSent\":%d,\"bytesSent\":%d}".formatted(sent, sent * 1000)),
        member("n3", "leaving", true, 1000, "{\"recordsReceived\":0}"));
  }

  private static String view(String self, long epoch, String change, String... members) {
    return "{\"node\":\"%s\",\"epoch\":%d,%s\"nodes\":[%s]}"
        .formatted(
            self,
            epoch,
            change == null ? "" : "\"change\":" + change + ",",
            String.join(",", members));
  }

  private static String member(
      String id, String state, boolean self, long records, String streaming) {
    return "{\"id\":\"%s\",\"address\":\"127.0.0.1:1\",\"self\":%s,\"state\":\"%s\",\"records\":%d%s}"
        .formatted(
            id, self, state, records, streaming == null ? "" : ",\"streaming\":" + streaming);
  }

  private FakeNode node() throws IOException {
    FakeNode node = new FakeNode();
    nodes.add(node);
    return node;
  }

  private static String port(FakeNode node) {
    return String.valueOf(node.port());
  }

  private static String n1Address(FakeNode n1) {
    return "--node=n1=127.0.0.1:" + n1.port();
  }

  /** Runs {@code args} with --wait, polling every 20 ms and giving up after 1 s of silence. */
  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = KvorumNode.commandLine();
    MembershipChangeCommand command = cli.getSubcommands().get(args[0]).getCommand();
    command.poll = Duration.ofMillis(20);
    command.giveUp = Duration.ofSeconds(1);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of(args));
    all.add(1, "--wait");
    int exit = cli.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
