package io.kvorum.node.antientropy;

import io.kvorum.node.antientropy.AntiEntropy.PeerRepair;
import io.kvorum.node.core.NodeId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the latest exchange with each peer went ({@code kvorum_repair_peer_*}): when the last one
 * that succeeded finished, what it repaired, and why the latest one failed. Safe for any thread.
 */
final class PeerRepairs {
  private final Map<NodeId, PeerRepair> status = new ConcurrentHashMap<>();

  /** Tracks {@code peers} from the start, each with its gauges and counter. */
  PeerRepairs(List<NodeId> peers, MeterRegistry registry) {
    for (NodeId peer : peers) {
      status.put(peer, PeerRepair.NEVER);
      Gauge.builder(
              "kvorum.repair.peer.last.completed.timestamp",
              () -> get(peer).lastCompletedMillis() / 1e3)
          .description("when the last successful exchange with the peer finished, Unix seconds")
          .tag("peer", peer.value())
          .baseUnit("seconds")
          .register(registry);
      Gauge.builder(
              "kvorum.repair.peer.last.completed", () -> get(peer).lastCompletedMillis() / 1e3)
          .description(
              "deprecated, removed in the next release: the same as"
                  + " kvorum_repair_peer_last_completed_timestamp_seconds")
          .tag("peer", peer.value())
          .baseUnit("seconds")
          .register(registry);
      Gauge.builder("kvorum.repair.peer.last.records.repaired", () -> get(peer).recordsRepaired())
          .description("records the last successful exchange with the peer moved")
          .tag("peer", peer.value())
          .register(registry);
      FunctionCounter.builder(
              "kvorum.repair.peer.records.repaired.total",
              this,
              repairs -> repairs.get(peer).recordsRepairedTotal())
          .description("records the exchanges with the peer moved since the node started")
          .tag("peer", peer.value())
          .register(registry);
    }
  }

  /** Tracks {@code peer}, a member since a membership change, unless it is tracked already. */
  void track(NodeId peer) {
    status.putIfAbsent(peer, PeerRepair.NEVER);
  }

  PeerRepair get(NodeId peer) {
    return status.getOrDefault(peer, PeerRepair.NEVER);
  }

  /** The exchange with {@code peer} failed for {@code reason}; its last success stays. */
  void failed(NodeId peer, String reason) {
    PeerRepair last = get(peer);
    status.put(
        peer,
        new PeerRepair(
            last.lastCompletedMillis(),
            last.recordsRepaired(),
            last.recordsRepairedTotal(),
            reason));
  }

  /** The exchange with {@code peer} finished at {@code atMillis} and moved {@code repaired}. */
  void completed(NodeId peer, long atMillis, long repaired) {
    status.put(
        peer,
        new PeerRepair(atMillis, repaired, get(peer).recordsRepairedTotal() + repaired, null));
  }
}
