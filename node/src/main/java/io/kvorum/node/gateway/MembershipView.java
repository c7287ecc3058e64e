package io.kvorum.node.gateway;

import io.kvorum.node.topology.ClusterState;
import java.util.LinkedHashMap;
import java.util.Map;

/** Membership changes as the HTTP API shows them. */
final class MembershipView {
  private MembershipView() {}

  /** The answer to a join aborted by removing its node: {@code 200} with the join. */
  static Map<String, Object> aborted(ClusterState.Change change, String node) {
    return answer("aborted", change, node);
  }

  /** The answer to a change started: {@code 202} with the change. */
  static Map<String, Object> started(ClusterState.Change change, String node) {
    return answer("started", change, node);
  }

  private static Map<String, Object> answer(
      String status, ClusterState.Change change, String node) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status);
    body.put("node", node);
    body.put("change", change.describe());
    return body;
  }
}
