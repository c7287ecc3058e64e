package io.kvorum.node.antientropy;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * One exchange with one peer: compares the tree this node shares with the peer top-down (the root,
 * then the {@value HashTrees#FANOUT} nodes below it if the roots differ, then the leaves of the
 * nodes that differ), pulls the peer's records of the differing leaves and keeps those newer than
 * its own, then pushes its own records of those leaves that the peer did not send as they are.
 * Storage merges every record it is given by last-writer-wins, so the newest version wins on both
 * sides whatever order things happen in.
 */
final class PeerExchange {
  private static final int BATCH_ENTRIES = 256;

  /** What an exchange did. */
  record Outcome(int segmentsCompared, int segmentsDiffering, long received, long sent) {
    long repaired() {
      return received + sent;
    }
  }

  private final NodeId peer;
  private final HashTrees trees;
  private final StorageEngine storage;
  private final PeerTransport transport;
  private final RepairRate rate;
  private final RepairMetrics metrics;
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private int compared;

  PeerExchange(
      NodeId peer,
      HashTrees trees,
      StorageEngine storage,
      PeerTransport transport,
      RepairRate rate,
      RepairMetrics metrics) {
    this.peer = peer;
    this.trees = trees;
    this.storage = storage;
    this.transport = transport;
    this.rate = rate;
    this.metrics = metrics;
  }

  CompletableFuture<Outcome> run() {
    return differingSegments()
        .thenCompose(
            differing -> {
              metrics.segmentsCompared(compared);
              metrics.segmentsDiffering(differing.length);
              if (differing.length == 0) {
                return CompletableFuture.completedFuture(new Outcome(compared, 0, 0, 0));
              }
              return pull(differing)
                  .thenCompose(theirs -> push(differing, theirs))
                  .thenApply(
                      done -> new Outcome(compared, differing.length, received.get(), sent.get()));
            });
  }

  private CompletableFuture<int[]> differingSegments() {
    return differing(0, new int[] {0})
        .thenCompose(
            roots ->
                roots.length == 0
                    ? CompletableFuture.completedFuture(roots)
                    : differing(1, IntStream.range(0, HashTrees.FANOUT).toArray()))
        .thenCompose(
            inner ->
                inner.length == 0
                    ? CompletableFuture.completedFuture(inner)
                    : differing(
                        2,
                        IntStream.of(inner)
                            .flatMap(
                                node ->
                                    IntStream.range(
                                        node * HashTrees.FANOUT, (node + 1) * HashTrees.FANOUT))
                            .toArray()));
  }

  /** The positions of {@code level} whose hashes differ here and at the peer. */
  private CompletableFuture<int[]> differing(int level, int[] positions) {
    return transport
        .call(
            peer,
            RepairProtocol.TREE_HASHES,
            new RepairProtocol.Hashes(trees.self(), level, positions))
        .thenApply(
            remote -> {
              if (remote.length != positions.length) {
                throw new IllegalStateException(
                    peer + " answered " + remote.length + " hashes for " + positions.length);
              }
              if (level == HashTrees.LEVELS - 1) {
                compared += positions.length;
              }
              long[] local = trees.hashes(peer, level, positions);
              return IntStream.range(0, positions.length)
                  .filter(i -> local[i] != remote[i])
                  .map(i -> positions[i])
                  .toArray();
            });
  }

  /**
   * Pulls the peer's records of {@code segments}, stores those newer than this node's, and returns
   * the digests of all it sent, by key hash.
   */
  private CompletableFuture<DigestTable> pull(int[] segments) {
    DigestTable theirs = new DigestTable();
    return Batches.forEach(
            transport.open(
                peer, RepairProtocol.SEGMENTS, new RepairProtocol.Segments(trees.self(), segments)),
            BATCH_ENTRIES,
            rate.batchBytes(),
            batch -> {
              List<Entry> newer = new ArrayList<>();
              for (Entry entry : batch) {
                long digest = HashTrees.digest(entry.key(), entry.record());
                theirs.put(HashTrees.keyHash(entry.key()), 0, digest, 0, 0);
                if (newerThanOurs(entry.key(), entry.record(), digest)) {
                  newer.add(entry);
                }
              }
              metrics.received(batch.size(), Batches.bytes(batch));
              if (newer.isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              return storage.putAll(newer).thenRun(() -> received.addAndGet(newer.size()));
            })
        .thenApply(done -> theirs);
  }

  private boolean newerThanOurs(Key key, Record record, long digest) {
    OptionalLong ours = trees.versionOf(key);
    if (ours.isEmpty() || ours.getAsLong() < record.version().value()) {
      return true;
    }
    return ours.getAsLong() == record.version().value()
        && trees.digestOf(key).orElse(digest) != digest;
  }

  /** Sends the peer this node's records of {@code segments} that it did not send as they are. */
  private CompletableFuture<Void> push(int[] segments, DigestTable theirs) {
    BitSet differing = new BitSet(HashTrees.LEAVES);
    IntStream.of(segments).forEach(differing::set);
    return Batches.forEach(
        storage.scan(AntiEntropy.EVERYTHING),
        BATCH_ENTRIES,
        rate.batchBytes(),
        batch -> {
          List<Entry> toSend = new ArrayList<>();
          for (Entry entry : batch) {
            long keyHash = HashTrees.keyHash(entry.key());
            if (differing.get(HashTrees.segment(keyHash))
                && trees.shared(peer, entry.key(), entry.record())) {
              int slot = theirs.find(keyHash);
              if (slot < 0
                  || theirs.digest(slot) != HashTrees.digest(entry.key(), entry.record())) {
                toSend.add(entry);
              }
            }
          }
          if (toSend.isEmpty()) {
            return CompletableFuture.completedFuture(null);
          }
          long bytes = Batches.bytes(toSend);
          return rate.acquire(bytes)
              .thenCompose(
                  permitted ->
                      CompletableFuture.allOf(
                          toSend.stream()
                              .map(e -> transport.call(peer, ReplicaProtocol.WRITE, e))
                              .toArray(CompletableFuture[]::new)))
              .thenRun(
                  () -> {
                    sent.addAndGet(toSend.size());
                    metrics.sent(toSend.size(), bytes);
                  });
        });
  }
}
