package io.kvorum.node.topology;

import io.kvorum.api.placement.RendezvousRanking;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Placement} by the api module's {@link RendezvousRanking}: rendezvous hashing taken in
 * rounds over the zones, the very code the placement-aware client routes by, so a client's idea of
 * a key's replicas is this node's
 * (docs/decisions/the-client-routes-by-the-nodes-placement-code.md).
 */
public final class RendezvousPlacement implements Placement {
  private final RendezvousRanking ranking;
  // The nodes in the ranking's order (sorted ids): its numbers index this.
  private final NodeId[] nodes;

  /** Placement over {@code nodes}, all in one zone: the zone-blind ranking. */
  public RendezvousPlacement(Collection<NodeId> nodes) {
    this(RendezvousRanking.of(nodes.stream().map(NodeId::value).toList()));
  }

  /**
   * Placement over the nodes of {@code zones} and the zone of each (SPEC §3).
   *
   * @param zones every node and its zone
   */
  public static RendezvousPlacement zoned(Map<NodeId, Zone> zones) {
    Map<String, String> names = new LinkedHashMap<>();
    zones.forEach((node, zone) -> names.put(node.value(), zone.name()));
    return new RendezvousPlacement(new RendezvousRanking(names));
  }

  private RendezvousPlacement(RendezvousRanking ranking) {
    this.ranking = ranking;
    this.nodes = new NodeId[ranking.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = NodeId.of(ranking.node(i));
    }
  }

  @Override
  public List<NodeId> replicas(Key key, int from) {
    int[] chosen = ranking.replicas(key.bytes(), from);
    NodeId[] replicas = new NodeId[chosen.length];
    for (int i = 0; i < chosen.length; i++) {
      replicas[i] = nodes[chosen[i]];
    }
    return List.of(replicas);
  }

  @Override
  public int mostReplicasAmong(Collection<NodeId> among, int from) {
    List<String> ids = new ArrayList<>(among.size());
    among.forEach(node -> ids.add(node.value()));
    return ranking.mostReplicasAmong(ids, from);
  }

  /** The number of distinct zones among the nodes (1 when none is named). */
  public int zones() {
    return ranking.zones();
  }

  @Override
  public int clusterSize() {
    return nodes.length;
  }
}
