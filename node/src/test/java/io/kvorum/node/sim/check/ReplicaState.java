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
 * What the nodes' storage holds of one key at the end of a run (after healing and repair), and the
 * key's ranking then. A record belongs on the first {@link Record#replicas} nodes of the ranking,
 * the {@code from} it was written with (SPEC §3): so the key's owners are those of its newest
 * record, and a node further down may still hold an older record written with a larger {@code
 * from}.
 *
 * @param key the key
 * @param ranking the key's nodes in placement order at the end (at least the largest {@code from}
 *     of its records), never empty
 * @param held the record each node holds, owner or not; a node holding nothing is absent
 */
public record ReplicaState(Key key, List<NodeId> ranking, SortedMap<NodeId, Record> held) {
  public ReplicaState {
    Objects.requireNonNull(key, "key");
    ranking = List.copyOf(ranking);
    if (ranking.isEmpty()) {
      throw new IllegalArgumentException("key " + key + " has no owner");
    }
    // Sorted, so that messages list nodes in the same order on every replay of a seed.
    held = Collections.unmodifiableSortedMap(new TreeMap<>(held));
  }

  /** The end state of {@code key}: {@code held} maps nodes to their record of it. */
  public static ReplicaState of(Key key, List<NodeId> ranking, Map<NodeId, Record> held) {
    return new ReplicaState(key, ranking, new TreeMap<>(held));
  }

  /** The record {@code node} holds, or null. */
  public Record heldBy(NodeId node) {
    return held.get(node);
  }

  /** The newest record any node holds (what a read of all its owners answers); empty if none. */
  public Optional<Record> newestOfOwners() {
    Record newest = null;
    for (Record record : held.values()) {
      newest = Record.newest(newest, record);
    }
    return Optional.ofNullable(newest);
  }

  /** The nodes the newest record belongs on; the whole ranking when no node holds the key. */
  public List<NodeId> owners() {
    return newestOfOwners().map(this::replicasOf).orElse(ranking);
  }

  /** Whether {@code record}, held by {@code node}, belongs there: among its own replicas. */
  public boolean belongs(NodeId node, Record record) {
    return replicasOf(record).contains(node);
  }

  private List<NodeId> replicasOf(Record record) {
    return ranking.subList(0, Math.min(ranking.size(), record.replicas()));
  }

  /** Each owner and what it holds, for messages: {@code n1 @5.0 'a', n2 none}. */
  public String describeOwners() {
    StringBuilder text = new StringBuilder();
    for (NodeId owner : owners()) {
      if (!text.isEmpty()) {
        text.append(", ");
      }
      text.append(owner).append(' ').append(Describe.record(held.get(owner)));
    }
    return text.toString();
  }
}
