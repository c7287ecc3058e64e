package io.kvorum.node.replication;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;

/**
 * Whether a node is still one a key's writes reach, by the cluster state this node holds now:
 * {@link HintedHandoff} forgets a hint for a node that no longer holds its key. Thread-safe.
 */
@FunctionalInterface
public interface Holders {
  /** Every node holds every key: a cluster whose membership never changes (tests). */
  Holders EVERY_NODE = (node, key, record) -> true;

  /**
   * Whether a write of {@code record} (its own {@code from}) to {@code key} reaches {@code node}.
   */
  boolean holds(NodeId node, Key key, Record record);
}
