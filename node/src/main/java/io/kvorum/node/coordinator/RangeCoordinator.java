package io.kvorum.node.coordinator;

import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Range reads over the whole cluster: every node's records in the range, merged by key, newest
 * version per key, live values only.
 */
public final class RangeCoordinator {
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
    List<ScanCursor> sources = new ArrayList<>();
    for (NodeId node : topology.ids()) {
      sources.add(replicas.scan(node, range));
    }
    return new MergingCursor(sources, wallMillis);
  }
}
