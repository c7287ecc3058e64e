package io.kvorum.node.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvorum.node.core.NodeId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link ClusterState} as JSON: what the data directory keeps and what travels between nodes.
 * Fields are only ever added; unknown ones are ignored, so nodes of neighbouring versions
 * understand each other. A member's {@code zone} is written only when named, so a cluster without
 * zones keeps the exact encoding of the release before zones; and it is written before {@code
 * state}, so that of two encodings of one epoch that differ only by zones (a node of the previous
 * release re-encodes a state it read without them), the one with zones sorts last and wins {@link
 * io.kvorum.node.membership.Membership}'s tie-break. A change of kind {@code move} is one the
 * previous release cannot read: it refuses that state, so a move waits for every node to be
 * upgraded (its driver waits for every reachable member to acknowledge the change).
 *
 * <p>A change whose reads moved ({@link ClusterState.Phase#READS_MOVED}) is written with its phase
 * in its kind, {@code "kind": "join:reads-moved"}, not in a field of its own: a release before
 * phases would ignore such a field and take the state for a change just started, read the old
 * owners alone and acknowledge the epoch, and the driver would then complete the change, writing
 * the new owners alone. A kind it does not know makes it refuse the state instead, as it refuses a
 * move: it never acknowledges the phase, so the change waits for it to be upgraded. A change just
 * started is written as before phases, so that every release reads it.
 *
 * <p>A member's advertised HTTP address ({@link Advertised}) follows its {@code state}, as {@code
 * http} and {@code httpStamp}, written only once the member has said. A release before them ignores
 * both and re-encodes the state without them: byte for byte the {@link #encodeEpochState} of this
 * release, the form the tie-break between two states of one epoch compares, so no release takes two
 * states that differ only by addresses for a conflict.
 */
public final class ClusterStateCodec {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String READS_MOVED = ":" + ClusterState.Phase.READS_MOVED.label();

  private ClusterStateCodec() {}

  public static byte[] encode(ClusterState state) {
    return encode(state, true);
  }

  /** The state without the members' HTTP addresses: what decides between states of one epoch. */
  public static byte[] encodeEpochState(ClusterState state) {
    return encode(state, false);
  }

  private static byte[] encode(ClusterState state, boolean withHttp) {
    ObjectNode root = JSON.createObjectNode();
    root.put("epoch", state.epoch());
    ArrayNode members = root.putArray("members");
    for (ClusterState.Node n : state.nodes()) {
      ObjectNode m = members.addObject();
      m.put("id", n.id().value());
      m.put("host", n.member().host());
      m.put("grpcPort", n.member().grpcPort());
      if (n.member().zone().named()) {
        m.put("zone", n.member().zone().name());
      }
      m.put("state", n.state().label());
      Advertised http = withHttp ? state.http().get(n.id()) : null;
      if (http != null) {
        m.put("http", http.address());
        m.put("httpStamp", http.stamp());
      }
    }
    state
        .change()
        .ifPresent(
            c -> {
              ObjectNode change = root.putObject("change");
              change.put("kind", kind(c));
              change.put("node", c.node().value());
              change.put("epoch", c.epoch());
              change.put("startedMillis", c.startedMillis());
              if (c.kind() == ClusterState.Kind.MOVE) {
                change.put("zone", c.zone().name());
              }
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
      Map<NodeId, Advertised> http = new HashMap<>();
      for (JsonNode m : root.required("members")) {
        if (m.hasNonNull("http")) {
          http.put(
              NodeId.of(m.required("id").asText()),
              new Advertised(m.get("http").asText(), m.path("httpStamp").asLong()));
        }
        nodes.add(
            new ClusterState.Node(
                new Member(
                    NodeId.of(m.required("id").asText()),
                    m.required("host").asText(),
                    m.required("grpcPort").asInt(),
                    Zone.of(m.path("zone").asText(""))),
                MemberState.of(m.required("state").asText())));
      }
      Optional<ClusterState.Change> change = Optional.empty();
      JsonNode c = root.get("change");
      if (c != null && !c.isNull()) {
        change =
            Optional.of(
                change(
                    c.required("kind").asText(),
                    NodeId.of(c.required("node").asText()),
                    c.required("epoch").asLong(),
                    c.path("startedMillis").asLong(),
                    Zone.of(c.path("zone").asText(""))));
      }
      return new ClusterState(root.required("epoch").asLong(), nodes, change, http);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a cluster state: " + e.getMessage(), e);
    }
  }

  /** A change's kind on the wire, with its phase once its reads moved. */
  private static String kind(ClusterState.Change change) {
    return change.kind().label() + (change.readsMoved() ? READS_MOVED : "");
  }

  private static ClusterState.Change change(
      String kind, NodeId node, long epoch, long startedMillis, Zone zone) {
    boolean moved = kind.endsWith(READS_MOVED);
    return new ClusterState.Change(
        ClusterState.Kind.of(
            moved ? kind.substring(0, kind.length() - READS_MOVED.length()) : kind),
        node,
        epoch,
        startedMillis,
        zone,
        moved ? ClusterState.Phase.READS_MOVED : ClusterState.Phase.STARTED);
  }
}
