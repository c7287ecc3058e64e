package io.kvorum.node.cluster;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.List;

/**
 * Which nodes hold a key. Contract: deterministic and identical on every node for the same
 * topology; {@code replicas(k, f)} is a prefix of {@code replicas(k, f + 1)}; no node twice.
 * Thread-safe and allocation-light: it runs on every request.
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
}
