package io.kvorum.node.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvorum.node.core.NodeId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link ClusterState} as JSON: what the data directory keeps and what travels between nodes.
 * Fields are only ever added; unknown ones are ignored, so nodes of neighbouring versions
 * understand each other.
 */
public final class ClusterStateCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ClusterStateCodec() {}

  public static byte[] encode(ClusterState state) {
    ObjectNode root = JSON.createObjectNode();
    root.put("epoch", state.epoch());
    ArrayNode members = root.putArray("members");
    for (ClusterState.Node n : state.nodes()) {
      ObjectNode m = members.addObject();
      m.put("id", n.id().value());
      m.put("host", n.member().host());
      m.put("grpcPort", n.member().grpcPort());
      m.put("state", n.state().label());
    }
    state
        .change()
        .ifPresent(
            c -> {
              ObjectNode change = root.putObject("change");
              change.put("kind", c.kind().label());
              change.put("node", c.node().value());
              change.put("epoch", c.epoch());
              change.put("startedMillis", c.startedMillis());
            });
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the cluster state", e);
    }
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not a cluster state
   */
  public static ClusterState decode(byte[] bytes) {
    try {
      JsonNode root = JSON.readTree(bytes);
      List<ClusterState.Node> nodes = new ArrayList<>();
      for (JsonNode m : root.required("members")) {
        nodes.add(
            new ClusterState.Node(
                new Member(
                    NodeId.of(m.required("id").asText()),
                    m.required("host").asText(),
                    m.required("grpcPort").asInt()),
                MemberState.of(m.required("state").asText())));
      }
      Optional<ClusterState.Change> change = Optional.empty();
      JsonNode c = root.get("change");
      if (c != null && !c.isNull()) {
        change =
            Optional.of(
                new ClusterState.Change(
                    ClusterState.Kind.of(c.required("kind").asText()),
                    NodeId.of(c.required("node").asText()),
                    c.required("epoch").asLong(),
                    c.path("startedMillis").asLong()));
      }
      return new ClusterState(root.required("epoch").asLong(), nodes, change);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a cluster state: " + e.getMessage(), e);
    }
  }
}
