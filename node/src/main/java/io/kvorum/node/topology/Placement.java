package io.kvorum.node.topology;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.Collection;
import java.util.List;

/**
 * Which nodes hold a key. Contract: deterministic and identical on every node for the same nodes
 * and zones; {@code replicas(k, f)} is a prefix of {@code replicas(k, f + 1)}; no node twice; the
 * replicas are spread over zones (SPEC §3): when the nodes span at least {@code f} zones, the
 * {@code f} replicas are in {@code f} different zones, and with fewer, no zone holds two more of
 * them than another zone that has nodes left. Thread-safe and allocation-light: it runs on every
 * request.
 */
public interface Placement {
  /**
   * The first {@code from} nodes of {@code key}'s ranking.
   *
   * @throws IllegalArgumentException if {@code from} is not in 1..cluster size
   */
  List<NodeId> replicas(Key key, int from);

  /** The number of nodes placement ranks. */
  int clusterSize();

  /**
   * The most of one key's {@code from} replicas that can be among {@code nodes}, over all keys
   * (nodes this placement does not rank are ignored): while it is below {@code from}, every key of
   * {@code from} copies keeps a replica outside {@code nodes}. Without zones it is the number of
   * those nodes, at most {@code from}; with zones, the nodes of one zone hold at most its share.
   */
  int mostReplicasAmong(Collection<NodeId> nodes, int from);
}
