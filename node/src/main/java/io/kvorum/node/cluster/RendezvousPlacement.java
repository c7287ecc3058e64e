package io.kvorum.node.cluster;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Rendezvous (highest-random-weight) hashing: each node scores each key; a key's replicas are the
 * nodes with the highest scores. Adding or removing a node moves only the keys it wins or loses.
 *
 * <p>The key is hashed once with XXH3; each node's score is that hash mixed with a per-node hash by
 * the SplitMix64/MurmurHash3 finaliser, so ranking N nodes costs one pass over the key.
 */
public final class RendezvousPlacement implements Placement {
  private static final Hasher64 HASH = Hashing.xxh3_64();

  private final NodeId[] nodes;
  private final long[] nodeHashes;

  public RendezvousPlacement(Collection<NodeId> nodes) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("placement needs at least one node");
    }
    this.nodes = nodes.stream().sorted().distinct().toArray(NodeId[]::new);
    if (this.nodes.length != nodes.size()) {
      throw new IllegalArgumentException("duplicate node ids in " + nodes);
    }
    this.nodeHashes = new long[this.nodes.length];
    for (int i = 0; i < this.nodes.length; i++) {
      nodeHashes[i] = HASH.hashBytesToLong(this.nodes[i].value().getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public List<NodeId> replicas(Key key, int from) {
    if (from < 1 || from > nodes.length) {
      throw new IllegalArgumentException(
          "from must be between 1 and the cluster size " + nodes.length + ", got " + from);
    }
    long keyHash = HASH.hashBytesToLong(key.bytes());
    if (from == 1) {
      return List.of(nodes[best(keyHash)]);
    }
    Integer[] order = new Integer[nodes.length];
    long[] scores = new long[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      order[i] = i;
      scores[i] = score(keyHash, i);
    }
    // Ties are astronomically unlikely; break them by node id (the array is sorted) to stay total.
    Arrays.sort(
        order,
        (a, b) -> {
          int c = Long.compareUnsigned(scores[b], scores[a]);
          return c != 0 ? c : Integer.compare(a, b);
        });
    NodeId[] chosen = new NodeId[from];
    for (int i = 0; i < from; i++) {
      chosen[i] = nodes[order[i]];
    }
    return List.of(chosen);
  }

  @Override
  public int clusterSize() {
    return nodes.length;
  }

  private int best(long keyHash) {
    int best = 0;
    long bestScore = score(keyHash, 0);
    for (int i = 1; i < nodes.length; i++) {
      long s = score(keyHash, i);
      if (Long.compareUnsigned(s, bestScore) > 0) {
        best = i;
        bestScore = s;
      }
    }
    return best;
  }

  private long score(long keyHash, int node) {
    return HASH.hashLongLongToLong(keyHash, nodeHashes[node]);
  }
}
