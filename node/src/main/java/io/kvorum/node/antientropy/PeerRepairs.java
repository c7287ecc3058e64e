package io.kvorum.node.antientropy;

import io.kvorum.node.antientropy.AntiEntropy.PeerRepair;
import io.kvorum.node.core.NodeId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the latest exchange with each peer went ({@code kvorum_repair_peer_*}): when the last one
 * that succeeded finished, what it repaired, and why the latest one failed. Safe for any thread.
 */
final class PeerRepairs {
  private final Map<NodeId, PeerRepair> status = new ConcurrentHashMap<>();

  private final MeterRegistry registry;
  private final Map<NodeId, List<Meter>> meters = new HashMap<>();

  /** Tracks {@code peers} from the start, each with its gauges and counter. */
  PeerRepairs(List<NodeId> peers, MeterRegistry registry) {
    this.registry = registry;
    follow(peers);
  }

  /**
   * Tracks exactly {@code peers}, the peers since a membership change: a new one gets its gauges
   * and counter, one that left loses them (a stale series would say a repair with it is overdue).
   */
  synchronized void follow(List<NodeId> peers) {
    for (NodeId gone : List.copyOf(meters.keySet())) {
      if (!peers.contains(gone)) {
        meters.remove(gone).forEach(registry::remove);
        status.remove(gone);
      }
    }
    for (NodeId peer : peers) {
      if (!meters.containsKey(peer)) {
        status.putIfAbsent(peer, PeerRepair.NEVER);
        meters.put(peer, register(peer));
      }
    }
  }

  private List<Meter> register(NodeId peer) {
    return List.of(
        Gauge.builder(
                "kvorum.repair.peer.last.completed.timestamp",
                () -> get(peer).lastCompletedMillis() / 1e3)
            .description("when the last successful exchange with the peer finished, Unix seconds")
            .tag("peer", peer.value())
            .baseUnit("seconds")
            .register(registry),
        Gauge.builder(
                "kvorum.repair.peer.last.completed", () -> get(peer).lastCompletedMillis() / 1e3)
            .description(
                "deprecated, removed in the next release: the same as"
                    + " kvorum_repair_peer_last_completed_timestamp_seconds")
            .tag("peer", peer.value())
            .baseUnit("seconds")
            .register(registry),
        Gauge.builder("kvorum.repair.peer.last.records.repaired", () -> get(peer).recordsRepaired())
            .description("records the last successful exchange with the peer moved")
            .tag("peer", peer.value())
            .register(registry),
        FunctionCounter.builder(
                "kvorum.repair.peer.records.repaired.total",
                this,
                repairs -> repairs.get(peer).recordsRepairedTotal())
            .description("records the exchanges with the peer moved since the node started")
            .tag("peer", peer.value())
            .register(registry));
  }

  PeerRepair get(NodeId peer) {
    return status.getOrDefault(peer, PeerRepair.NEVER);
  }

  /** The exchange with {@code peer} failed for {@code reason}; its last success stays. */
  void failed(NodeId peer, String reason) {
    // A peer that left meanwhile stays forgotten.
    status.computeIfPresent(
        peer,
        (p, last) ->
            new PeerRepair(
                last.lastCompletedMillis(),
                last.recordsRepaired(),
                last.recordsRepairedTotal(),
                reason));
  }

  /** The exchange with {@code peer} finished at {@code atMillis} and moved {@code repaired}. */
  void completed(NodeId peer, long atMillis, long repaired) {
    status.computeIfPresent(
        peer,
        (p, last) ->
            new PeerRepair(atMillis, repaired, last.recordsRepairedTotal() + repaired, null));
  }
}
