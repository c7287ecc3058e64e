package io.kvorum.node.coordinator;

import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.replication.Replicas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range reads over the whole cluster: every reachable node's records in the range, merged by key,
 * newest version per key, live values only.
 *
 * <p>A node known to be down when the range starts (its connection is down or its circuit breaker
 * open) is left out: with every key on {@code from} replicas, the others still hold every key
 * written to more than one replica. A node that fails once the range streams cuts it off.
 */
public final class RangeCoordinator {
  private static final Logger log = LoggerFactory.getLogger(RangeCoordinator.class);
  private final Topology topology;
  private final Replicas replicas;
  private final LongSupplier wallMillis;

  RangeCoordinator(Topology topology, Replicas replicas, LongSupplier wallMillis) {
    this.topology = topology;
    this.replicas = replicas;
    this.wallMillis = wallMillis;
  }

  /** A cursor of live entries in {@code range}, in key order; the caller must close it. */
  public ScanCursor range(KeyRange range) {
    List<NodeId> nodes =
        topology.ids().stream().filter(node -> replicas.state(node).reachable()).toList();
    if (nodes.size() < topology.size()) {
      log.debug("range {} leaves out the nodes that are down; it reads {}", range, nodes);
    }
    List<ScanCursor> sources = new ArrayList<>();
    for (NodeId node : nodes) {
      sources.add(failingAsNotEnoughReplicas(replicas.scan(node, range), nodes.size()));
    }
    return new MergingCursor(sources, wallMillis);
  }

  /** A source that fails means the range cannot be complete: not enough replicas answered. */
  private static ScanCursor failingAsNotEnoughReplicas(ScanCursor source, int sources) {
    return source.mapBatches(
        batch ->
            batch.exceptionallyCompose(
                error ->
                    CompletableFuture.failedFuture(
                        Failures.unwrap(error) instanceof PeerUnavailableException
                            ? new NotEnoughReplicasException(
                                sources, sources - 1, Map.of(), List.of())
                            : error)));
  }
}
