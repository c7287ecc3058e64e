package io.kvorum.node.topology;

import io.kvorum.node.core.NodeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole static cluster as this node knows it: every member, this node among them.
 *
 * @param self this node's id; always one of {@code members}
 * @param members every node, in the order configured
 */
public record Topology(NodeId self, List<Member> members) {
  public Topology {
    members = List.copyOf(members);
    Map<NodeId, Member> byId = new LinkedHashMap<>();
    for (Member m : members) {
      if (byId.put(m.id(), m) != null) {
        throw new IllegalArgumentException("node id '" + m.id() + "' appears more than once");
      }
    }
    if (!byId.containsKey(self)) {
      throw new IllegalArgumentException("this node '" + self + "' is not among the peers");
    }
  }

  /** A one-node cluster. */
  public static Topology single(NodeId self, String host, int grpcPort) {
    return new Topology(self, List.of(new Member(self, host, grpcPort)));
  }

  public int size() {
    return members.size();
  }

  public List<NodeId> ids() {
    return members.stream().map(Member::id).toList();
  }

  /** Every member but this node. */
  public List<Member> peers() {
    return members.stream().filter(m -> !m.id().equals(self)).toList();
  }

  public Optional<Member> member(NodeId id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst();
  }
}
