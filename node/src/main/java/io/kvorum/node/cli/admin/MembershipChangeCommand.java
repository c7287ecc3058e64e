package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
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
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /** What is asked of the node: the path and query of the POST. */
  abstract String pathAndQuery();

  /** What to print once the change started, given who answered (its node id and URL). */
  abstract String started(String who);

  @Override
  public Integer call() throws InterruptedException {
    String command = command();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    HttpResponse<byte[]> answer;
    try {
      answer = node.send("POST", pathAndQuery());
    } catch (NodeAddress.Unreachable e) {
      err.println("kvorum-node " + command + ": " + e.getMessage());
      return ExitCodes.FAILURE;
    }
    JsonNode body = json(answer.body());
    String name = body != null && body.hasNonNull("node") ? body.path("node").asText() : null;
    String who =
        name == null ? "the node at " + node.baseUrl() : name + " (" + node.baseUrl() + ")";
    int status = answer.statusCode();
    if (status == 200 && body != null && body.path("status").asText().equals("aborted")) {
      out.println(
          "kvorum-node "
              + command
              + ": "
              + who
              + " aborted the join of "
              + body.path("change").path("node").asText()
              + ", which was down: the cluster keeps the members it had.");
      out.flush();
      return ExitCodes.OK;
    }
    if (status == 200 || status == 202) {
      out.println("kvorum-node " + command + ": " + started(who));
      out.flush();
      return await && body != null && body.path("change").isObject()
          ? follow(body.path("change"), out, err)
          : ExitCodes.OK;
    }
    if (status == 409) {
      err.println(
          "kvorum-node "
              + command
              + ": refused, "
              + (body != null && body.hasNonNull("detail")
                  ? body.path("detail").asText()
                  : "another membership change is in progress")
              + " (409); try again once it is over");
      return ExitCodes.FAILURE;
    }
    err.println(
        "kvorum-node " + command + ": " + who + " answered " + NodeAddress.describe(status, body));
    return ExitCodes.FAILURE;
  }

  private int follow(JsonNode change, PrintWriter out, PrintWriter err)
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

  private static JsonNode json(byte[] body) {
    try {
      return body.length == 0 ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
