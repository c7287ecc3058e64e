package io.kvorum.node.antientropy;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.storage.StorageEngine;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

/**
 * This node's side of the exchanges its peers run: the hashes of the tree it shares with a peer,
 * and its records of the segments a peer pulls, released at the repair rate. Each call reads the
 * trees it is given, the node's current ones.
 */
final class ExchangeAnswers {
  private final StorageEngine storage;
  private final RepairRate rate;
  private final RepairMetrics metrics;

  ExchangeAnswers(StorageEngine storage, RepairRate rate, RepairMetrics metrics) {
    this.storage = storage;
    this.rate = rate;
    this.metrics = metrics;
  }

  /** As {@link AntiEntropy#hashes}; refused while {@code trees} are being built. */
  CompletableFuture<long[]> hashes(HashTrees trees, NodeId peer, int level, int[] positions) {
    if (!trees.complete()) {
      return CompletableFuture.failedFuture(
          new UnavailableException("its hash trees are still being built"));
    }
    return CompletableFuture.completedFuture(trees.hashes(peer, level, positions));
  }

  /** As {@link AntiEntropy#segments}. */
  ScanCursor segments(HashTrees trees, NodeId peer, int[] segments) {
    BitSet wanted = new BitSet(HashTrees.LEAVES);
    for (int segment : segments) {
      if (segment < 0 || segment >= HashTrees.LEAVES) {
        throw new IllegalArgumentException("no segment " + segment);
      }
      wanted.set(segment);
    }
    if (!trees.nodes().contains(peer) || peer.equals(trees.self())) {
      throw new IllegalArgumentException("no tree is shared with " + peer);
    }
    return new SegmentCursor(
        storage.scan(AntiEntropy.EVERYTHING),
        entry ->
            wanted.get(HashTrees.segment(entry.key()))
                && trees.shared(peer, entry.key(), entry.record()),
        rate,
        metrics);
  }
}
