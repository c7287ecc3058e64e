package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the nodes' storage holds of one key at the end of a run (after healing and repair), and
 * which nodes own the key then.
 *
 * @param key the key
 * @param owners the key's replicas at the end (its first {@code from} nodes), never empty
 * @param held the record each node holds, owner or not; a node holding nothing is absent
 */
public record ReplicaState(Key key, List<NodeId> owners, SortedMap<NodeId, Record> held) {
  public ReplicaState {
    Objects.requireNonNull(key, "key");
    owners = List.copyOf(owners);
    if (owners.isEmpty()) {
      throw new IllegalArgumentException("key " + key + " has no owner");
    }
    // Sorted, so that messages list nodes in the same order on every replay of a seed.
    held = Collections.unmodifiableSortedMap(new TreeMap<>(held));
  }

  /** The end state of {@code key}: {@code held} maps nodes to their record of it. */
  public static ReplicaState of(Key key, List<NodeId> owners, Map<NodeId, Record> held) {
    return new ReplicaState(key, owners, new TreeMap<>(held));
  }

  /** The record {@code node} holds, or null. */
  public Record heldBy(NodeId node) {
    return held.get(node);
  }

  /** The newest record among the owners (what a read of all of them answers); empty if none. */
  public Optional<Record> newestOfOwners() {
    Record newest = null;
    for (NodeId owner : owners) {
      newest = Record.newest(newest, held.get(owner));
    }
    return Optional.ofNullable(newest);
  }

  /** Each owner and what it holds, for messages: {@code n1 @5.0 'a', n2 none}. */
  public String describeOwners() {
    StringBuilder text = new StringBuilder();
    for (NodeId owner : owners) {
      if (!text.isEmpty()) {
        text.append(", ");
      }
      text.append(owner).append(' ').append(Describe.record(held.get(owner)));
    }
    return text.toString();
  }
}
