package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.MembershipChange;
import io.kvorum.api.MembershipChangeResult;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * An operator's sub-command that asks a node to start a membership change ({@code POST
 * /v0/cluster/...}, SPEC §8) and says in one line what came of it: started ({@code 202}, exit 0),
 * refused because another change is in progress ({@code 409}, exit 1, with the node's words), any
 * other answer or no answer (exit 1). With {@code --wait} it then follows the change to its end
 * ({@link ChangeWatch}): exit 0 once the node left, 4 if the change ended otherwise or could no
 * longer be followed.
 */
abstract class MembershipChangeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Option(
      names = "--wait",
      description =
          "Wait until the change is over, showing its progress (records streamed, MB/s, time"
              + " left) and a summary; exit 4 if it ends without the node leaving or the nodes stop"
              + " answering. Ctrl-C stops the waiting, not the change.")
  boolean await;

  @Mixin MemberAddresses members = new MemberAddresses();

  /**
   * How often {@code --wait} asks, and how long it lets every node be silent; tests shorten them.
   */
  Duration poll = Duration.ofSeconds(1);

  Duration giveUp = Duration.ofSeconds(30);

  /** The sub-command's name, for its messages. */
  abstract String command();

  /** What is asked of the node. */
  abstract MembershipChangeResult request(KvorumAdmin node);

  /** What to print once the change started, given who answered (its node id and URL). */
  abstract String started(String who);

  @Override
  public Integer call() throws InterruptedException {
    String command = command();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    MembershipChangeResult answer;
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      answer = connection.ask(this::request);
    } catch (Unreachable e) {
      err.println("kvorum-node " + command + ": " + e.getMessage());
      return ExitCodes.FAILURE;
    } catch (KvorumClientException e) {
      return refused(e, err);
    }
    String who = who(answer.node());
    if (answer.aborted()) {
      out.println(
          "kvorum-node "
              + command
              + ": "
              + who
              + " aborted the join of "
              + (answer.change() == null ? "" : ChangeWatch.text(answer.change().node()))
              + ", which was down: the cluster keeps the members it had.");
      out.flush();
      return ExitCodes.OK;
    }
    out.println("kvorum-node " + command + ": " + started(who));
    out.flush();
    return await && answer.change() != null ? follow(answer.change(), out, err) : ExitCodes.OK;
  }

  /** The exit code, once the node's refusal (409: another change in progress) is said. */
  private int refused(KvorumClientException answer, PrintWriter err) {
    JsonNode body = NodeConnection.problem(answer);
    if (answer.status() == 409) {
      err.println(
          "kvorum-node "
              + command()
              + ": refused, "
              + (body != null && body.hasNonNull("detail")
                  ? body.path("detail").asText()
                  : "another membership change is in progress")
              + " (409); try again once it is over");
      return ExitCodes.FAILURE;
    }
    String name = body != null && body.hasNonNull("node") ? body.path("node").asText() : null;
    err.println(
        "kvorum-node "
            + command()
            + ": "
            + who(name)
            + " answered "
            + NodeConnection.describe(answer));
    return ExitCodes.FAILURE;
  }

  /** The node that answered: its id, if it said, and its URL. */
  private String who(String name) {
    return name == null ? "the node at " + node.baseUrl() : name + " (" + node.baseUrl() + ")";
  }

  private int follow(MembershipChange change, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    ChangeWatch.Outcome outcome =
        new ChangeWatch(
                command(),
                change,
                node,
                members,
                new ProgressLine(err, ProgressLine.terminal(), System::nanoTime),
                System::nanoTime,
                poll,
                giveUp)
            .await();
    (outcome.exitCode() == ExitCodes.OK ? out : err).println(outcome.message());
    out.flush();
    err.flush();
    return outcome.exitCode();
  }
}
