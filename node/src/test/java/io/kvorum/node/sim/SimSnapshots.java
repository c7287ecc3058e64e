package io.kvorum.node.sim;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.sim.check.AppliedRecord;
import io.kvorum.node.sim.check.LostWrites;
import io.kvorum.node.sim.check.Recording;
import io.kvorum.node.sim.check.ReplicaState;
import io.kvorum.node.sim.check.Violation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A snapshot on every member, as {@code kvorum-node snapshot} takes one: member after member, each
 * a copy of every record its storage holds at one instant (a RocksDB checkpoint flushes the
 * memtables, so the writes not synced yet are in it), taken while the clients and the faults go on.
 * A member that is down or frozen when its turn comes is taken once it is back, as an operator runs
 * the command again.
 */
final class SimSnapshots {
  /** How long a member may stay down or frozen before the snapshot gives up on the run. */
  private static final Duration WAIT = Duration.ofSeconds(120);

  private final SortedMap<NodeId, Map<Key, Record>> taken = new TreeMap<>();
  private long firstAt = -1;
  private long firstWallMillis;
  private long lastAt;

  /** Takes one of every member of {@code cluster}, one after the other, on {@code keys}. */
  void take(SimCluster cluster, List<Key> keys) {
    for (SimNode node : cluster.nodes()) {
      if (!cluster.runUntil(() -> node.up() && !node.paused(), WAIT)) {
        throw new AssertionError(node.id() + " was not back within " + WAIT + " for its snapshot");
      }
      Map<Key, Record> records = new TreeMap<>();
      for (Key key : keys) {
        node.held(key).ifPresent(r -> records.put(key, r));
      }
      taken.put(node.id(), records);
      if (firstAt < 0) {
        firstAt = cluster.scheduler().now();
        firstWallMillis = node.wallMillis();
      }
      lastAt = cluster.scheduler().now();
      // The command asks the next member after this one answered.
      cluster.run(Duration.ofMillis(1 + cluster.scheduler().random().nextInt(20)));
    }
  }

  /** Each member's snapshot, by member. */
  SortedMap<NodeId, Map<Key, Record>> taken() {
    return taken;
  }

  /** The newest record of each key over every member's snapshot: what a restore must answer. */
  SortedMap<Key, Record> newest() {
    SortedMap<Key, Record> newest = new TreeMap<>();
    taken
        .values()
        .forEach(records -> records.forEach((k, r) -> newest.merge(k, r, Record::newest)));
    return newest;
  }

  /**
   * Every write acknowledged before the first member's snapshot is in the snapshots (or a newer
   * write of its key is): {@link LostWrites} on the writes answered before it, with the snapshots
   * as the end state and only what replicas applied before it as the allowance for purged records.
   */
  List<Violation> check(Recording recording) {
    Recording.Recorder before = Recording.recorder();
    recording.ops().stream().filter(op -> op.ret() < firstAt).forEach(before::op);
    for (AppliedRecord applied : recording.applied()) {
      if (applied.at() <= firstAt) {
        before.applied(applied.key(), applied.record(), applied.node(), applied.at());
      }
    }
    List<NodeId> members = List.copyOf(taken.keySet());
    SortedMap<Key, Map<NodeId, Record>> held = new TreeMap<>();
    taken.forEach(
        (node, records) ->
            records.forEach(
                (key, r) -> held.computeIfAbsent(key, k -> new TreeMap<>()).put(node, r)));
    held.forEach((key, records) -> before.end(ReplicaState.of(key, members, records)));
    before.settledAt(firstAt).endMillis(firstWallMillis);
    List<Violation> violations = new ArrayList<>();
    for (Violation v : new LostWrites().check(before.build())) {
      violations.add(new Violation("snapshot " + v.checker(), v.key(), v.message()));
    }
    return violations;
  }

  /** e.g. {@code snapshots of 4 members from 12.301 s to 12.350 s}. */
  String summary() {
    return String.format(
        java.util.Locale.ROOT,
        "snapshots of %d members from %.3f s to %.3f s",
        taken.size(),
        firstAt / 1e9,
        lastAt / 1e9);
  }
}
