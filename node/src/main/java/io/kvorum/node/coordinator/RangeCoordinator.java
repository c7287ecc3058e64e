package io.kvorum.node.coordinator;

import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.replica.ReplicaScan;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.transport.PeerTransport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.LongSupplier;

/**
 * Range reads over the whole cluster: every reachable node's records in the range, merged by key,
 * newest version per key, live values only.
 *
 * <p>Nodes are lost when they are down as the range starts (connection down or circuit breaker
 * open: they are not read) or when their cursor fails while the range streams (the merge goes on
 * from the others, after the last key it passed on). The range carries on for as long as the nodes
 * still read hold every key, by the rule of {@link RangeCoverage}, and fails once they may not.
 */
public final class RangeCoordinator {
  private final Membership membership;
  private final Replicas replicas;
  private final int replicationFactor;
  private final LongSupplier wallMillis;

  /**
   * @param replicationFactor the {@code from} of requests that do not say, within the owners
   */
  RangeCoordinator(
      Membership membership, Replicas replicas, int replicationFactor, LongSupplier wallMillis) {
    this.membership = membership;
    this.replicas = replicas;
    this.replicationFactor = replicationFactor;
    this.wallMillis = wallMillis;
  }

  /**
   * A cursor of live entries in {@code range}, in key order; the caller must close it. With a
   * {@code limit} the nodes read send batches from that size on, not a full batch each for a few
   * entries.
   */
  public ScanCursor range(KeyRange range, OptionalInt limit) {
    List<NodeId> reading = new ArrayList<>();
    Map<NodeId, String> down = new LinkedHashMap<>();
    // The members reads go to hold every key (a joining node may hold only some until the reads of
    // its join moved to it): coverage counts them.
    Owners owners = membership.owners();
    for (NodeId node : owners.readMembers()) {
      PeerTransport.PeerState state = replicas.state(node);
      if (state.reachable()) {
        reading.add(node);
      } else {
        down.put(node, state.detail());
      }
    }
    RangeCoverage coverage =
        new RangeCoverage(
            range,
            owners.size(),
            Math.min(replicationFactor, owners.size()),
            reading,
            owners.readPlacement());
    down.forEach(coverage::leftOut);
    Optional<RuntimeException> gone = coverage.gone();
    if (gone.isPresent()) {
      return ScanCursor.failed(gone.get());
    }
    ReplicaScan scan = new ReplicaScan(range, limit.orElse(0));
    List<ScanCursor> sources = new ArrayList<>();
    for (NodeId node : reading) {
      sources.add(replicas.scan(node, scan));
    }
    return new MergingCursor(sources, wallMillis, coverage);
  }
}
