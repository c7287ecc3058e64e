package io.kvorum.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
import java.util.function.Function;

/**
 * Asks a node to start a membership change ({@code POST /v0/cluster/...}, SPEC §8) for an
 * operator's sub-command, and says in one line what came of it: started ({@code 202}, exit 0),
 * refused because another change is in progress ({@code 409}, exit 1, with the node's words), any
 * other answer or no answer (exit 1).
 */
final class MembershipChangeRequest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MembershipChangeRequest() {}

  /**
   * @param command the sub-command, for its messages
   * @param started what to print once started, given who answered (its node id and URL)
   * @return the exit code
   */
  static int send(
      String command,
      NodeAddress node,
      String pathAndQuery,
      PrintWriter out,
      PrintWriter err,
      Function<String, String> started)
      throws InterruptedException {
    HttpResponse<byte[]> answer;
    try {
      answer = node.send("POST", pathAndQuery);
    } catch (NodeAddress.Unreachable e) {
      err.println("kvorum-node " + command + ": " + e.getMessage());
      return KvorumNode.EXIT_FAILURE;
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
      return KvorumNode.EXIT_OK;
    }
    if (status == 200 || status == 202) {
      out.println("kvorum-node " + command + ": " + started.apply(who));
      out.flush();
      return KvorumNode.EXIT_OK;
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
      return KvorumNode.EXIT_FAILURE;
    }
    err.println(
        "kvorum-node " + command + ": " + who + " answered " + NodeAddress.describe(status, body));
    return KvorumNode.EXIT_FAILURE;
  }

  private static JsonNode json(byte[] body) {
    try {
      return body.length == 0 ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
