package io.kvorum.node.coordinator;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.quorum.ReplicaFailures;
import io.kvorum.node.topology.Placement;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the nodes a range still reads hold every key of it.
 *
 * <p>A key written with {@code from} = F lives on the first F nodes of its ranking, so while fewer
 * than F nodes are lost (down when the range started, or failed while it streamed), every such key
 * still has a copy on a node being read. The coordinator cannot know the {@code from} of keys it
 * has not read yet, so a range assumes F = the smallest of the cluster's default {@code from} and
 * every replica count in the records it has read so far, from any node, tombstones and expired
 * records included. It goes on while fewer than F nodes are lost and fails (504 before the first
 * entry, a cut-off response after) once F nodes are lost. Keys written with a smaller {@code from}
 * than any the range has seen may be missing, if they lived only on lost nodes. With zones the rule
 * counts replicas rather than nodes ({@link Placement#mostReplicasAmong}): a key has at most its
 * zone's share of replicas among the nodes of one zone, so a range goes on with a whole zone lost
 * when F is at most the number of zones, however many nodes that zone had.
 *
 * <p>Thread-safe.
 */
final class RangeCoverage implements MergingCursor.Coverage {
  private static final Logger log = LoggerFactory.getLogger(RangeCoverage.class);

  private final KeyRange range;
  private final int clusterSize;
  private final List<NodeId> sources;
  private final Placement placement;
  private final ReplicaFailures lost = new ReplicaFailures();
  private int assumedFrom;

  /**
   * @param clusterSize nodes in the cluster
   * @param defaultFrom the {@code from} of a request that does not say
   * @param sources the nodes read, by source index
   */
  RangeCoverage(KeyRange range, int clusterSize, int defaultFrom, List<NodeId> sources) {
    this(range, clusterSize, defaultFrom, sources, null);
  }

  /**
   * @param placement the placement of the keys read, whose zones say how many replicas of a key the
   *     lost nodes may hold; null: one zone, each lost node may hold one
   */
  RangeCoverage(
      KeyRange range, int clusterSize, int defaultFrom, List<NodeId> sources, Placement placement) {
    this.placement = placement;
    this.range = range;
    this.clusterSize = clusterSize;
    this.assumedFrom = Math.min(defaultFrom, clusterSize);
    this.sources = List.copyOf(sources);
  }

  /** {@code node} is down as the range starts and is not read. */
  synchronized void leftOut(NodeId node, String reason) {
    lost.add(node, new PeerUnavailableException(node, reason, null));
  }

  @Override
  public synchronized void lost(int source, Throwable error) {
    NodeId node = sources.get(source);
    lost.add(node, error);
    if (lostReplicas() < assumedFrom) {
      log.warn(
          "range {} lost {} ({}); the {} of {} nodes left hold every key written with from >= {}",
          range,
          node,
          Failures.rootMessage(error),
          clusterSize - lost.count(),
          clusterSize,
          lost.count() + 1);
    }
  }

  /** The most replicas of one key of {@code from} = F that the lost nodes may hold. */
  private int lostReplicas() {
    return placement == null
        ? lost.count()
        : placement.mostReplicasAmong(lost.nodes(), Math.min(assumedFrom, placement.clusterSize()));
  }

  @Override
  public synchronized void seen(Record record) {
    if (record.replicas() < assumedFrom) {
      assumedFrom = record.replicas();
    }
  }

  @Override
  public synchronized Optional<RuntimeException> gone() {
    if (lostReplicas() < assumedFrom) {
      return Optional.empty();
    }
    return Optional.of(
        lost.toClientError(clusterSize - assumedFrom + 1, clusterSize - lost.count(), List.of()));
  }
}
