package io.kvorum.node.antientropy;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.topology.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One hash tree per peer over the records that both this node and that peer should hold: a record
 * belongs to the first {@link Record#replicas()} nodes of its key's ranking, so it is in peer P's
 * tree when this node and P are both among them.
 *
 * <p><b>Shape.</b> Every tree has {@value #LEAVES} leaves (segments); a key's segment is the top
 * {@value #SEGMENT_BITS} bits of an XXH3 hash of its bytes, so every node puts a key in the same
 * segment. A leaf's hash is the XOR of the digests of its records (a digest covers the key and the
 * whole record); an inner node's is the XOR of its {@value #FANOUT} children: level 0 is the root,
 * level 1 has {@value #FANOUT} nodes, level 2 is the leaves. Inner nodes are kept beside the
 * leaves, XORed as they are.
 *
 * <p><b>Updates.</b> Storage writes are blind, so {@link #offer} is told every record that was
 * stored, winner or not, and keeps per key hash the version and digest of the best record offered
 * so far: an older one changes nothing; a newer one XORs the old digest out of the old peers'
 * leaves (and the inner nodes above them) and the new one in. Two different records with the same
 * version (a tie that only the value bytes decide) cannot be ordered from digests: {@link #offer}
 * reports it and the caller settles it with the record storage kept ({@link #settle}). Thread-safe.
 */
public final class HashTrees {
  static final int SEGMENT_BITS = 16;
  static final int LEAVES = 1 << SEGMENT_BITS;
  static final int FANOUT = 256;
  static final int LEVELS = 3;

  private static final Hasher64 KEY_HASH = Hashing.xxh3_64(0x6b766f72756d4145L);
  private static final Hasher64 DIGEST = Hashing.xxh3_64(0x6b766f72756d4144L);

  private final NodeId self;
  private final Placement placement;
  private final List<NodeId> nodes;
  private final Map<NodeId, Integer> peerIndex;
  private final long[][] leaves;

  /**
   * Per peer, the hashes above its leaves, kept as the leaves change: index 0 the root, {@code 1 +
   * i} the {@code i}-th node of level 1. Folding {@value #LEAVES} leaves for levels 0 and 1 at
   * every exchange instead took a sixth of the deterministic simulation's CPU, which runs many
   * rounds.
   */
  private final long[][] inner;

  private final DigestTable table = new DigestTable();
  private volatile boolean complete;

  /**
   * @param nodes every node of the cluster, this one among them (at most 64)
   */
  public HashTrees(NodeId self, List<NodeId> nodes, Placement placement) {
    if (nodes.size() > Long.SIZE) {
      throw new IllegalArgumentException("hash trees support up to 64 nodes");
    }
    this.self = self;
    this.placement = placement;
    this.nodes = List.copyOf(nodes);
    this.peerIndex =
        this.nodes.stream()
            .collect(Collectors.toUnmodifiableMap(Function.identity(), this.nodes::indexOf));
    this.leaves = new long[this.nodes.size()][];
    this.inner = new long[this.nodes.size()][];
    for (NodeId node : this.nodes) {
      if (!node.equals(self)) {
        leaves[peerIndex.get(node)] = new long[LEAVES];
        inner[peerIndex.get(node)] = new long[1 + FANOUT];
      }
    }
  }

  /** The hash of a key's bytes, from which its segment is taken. */
  static long keyHash(Key key) {
    return KEY_HASH.hashBytesToLong(key.bytes());
  }

  /** The segment (leaf) of a key with hash {@code keyHash}. */
  static int segment(long keyHash) {
    return (int) (keyHash >>> (Long.SIZE - SEGMENT_BITS));
  }

  /** The segment (leaf) of {@code key}. */
  public static int segment(Key key) {
    return segment(keyHash(key));
  }

  /** A 64-bit digest of a key and everything in its record. */
  static long digest(Key key, Record record) {
    HashStream64 stream = DIGEST.hashStream();
    stream.putInt(key.size()).putBytes(key.bytes());
    stream.putLong(record.version().value());
    stream.putBoolean(record.tombstone());
    stream.putLong(record.expiresAtMillis());
    stream.putInt(record.replicas());
    stream.putBytes(record.value());
    return stream.getAsLong();
  }

  /**
   * The peers whose trees hold {@code record} of {@code key}: as a bit set over the node list,
   * empty unless this node is itself one of the record's replicas.
   */
  long peerMask(Key key, Record record) {
    int from = Math.min(record.replicas(), placement.clusterSize());
    List<NodeId> replicas = placement.replicas(key, from);
    if (!replicas.contains(self)) {
      return 0;
    }
    long mask = 0;
    for (NodeId node : replicas) {
      if (!node.equals(self)) {
        mask |= 1L << peerIndex.get(node);
      }
    }
    return mask;
  }

  /** Whether both this node and {@code peer} should hold {@code record} of {@code key}. */
  public boolean shared(NodeId peer, Key key, Record record) {
    Integer index = peerIndex.get(peer);
    return index != null && (peerMask(key, record) & (1L << index)) != 0;
  }

  /**
   * Takes note that storage was offered {@code record} for {@code key} (and kept it or a better
   * one).
   *
   * @return false when the stored record cannot be told from digests (a different record with the
   *     same version is known): the caller reads what storage kept and passes it to {@link #settle}
   */
  public boolean offer(Key key, Record record) {
    long keyHash = keyHash(key);
    long digest = digest(key, record);
    long mask = peerMask(key, record);
    long version = record.version().value();
    synchronized (this) {
      int slot = table.find(keyHash);
      if (slot >= 0) {
        long known = table.version(slot);
        if (known > version || (known == version && table.digest(slot) == digest)) {
          return true;
        }
        if (known == version) {
          return false;
        }
      }
      replace(keyHash, slot, version, digest, record.diesAtMillis(), mask);
      return true;
    }
  }

  /** Makes {@code stored}, which storage holds for {@code key} now, the one the trees know. */
  public void settle(Key key, Record stored) {
    long keyHash = keyHash(key);
    long digest = digest(key, stored);
    long mask = peerMask(key, stored);
    long version = stored.version().value();
    synchronized (this) {
      int slot = table.find(keyHash);
      if (slot >= 0 && table.version(slot) > version) {
        return;
      }
      replace(keyHash, slot, version, digest, stored.diesAtMillis(), mask);
    }
  }

  private void replace(long keyHash, int slot, long version, long digest, long diesAt, long mask) {
    int segment = segment(keyHash);
    if (slot >= 0) {
      xor(table.peers(slot), segment, table.digest(slot));
    }
    xor(mask, segment, digest);
    table.put(keyHash, version, digest, diesAt, mask);
  }

  private void xor(long mask, int segment, long digest) {
    for (long m = mask; m != 0; m &= m - 1) {
      int peer = Long.numberOfTrailingZeros(m);
      leaves[peer][segment] ^= digest;
      inner[peer][0] ^= digest;
      inner[peer][1 + segment / (LEAVES / FANOUT)] ^= digest;
    }
  }

  /**
   * Forgets the records that died before {@code deadBefore} (a purge sweep removed them).
   *
   * @return how many were forgotten
   */
  public synchronized int forgetDeadBefore(long deadBefore) {
    List<Long> dead = new ArrayList<>();
    for (int slot = 0; slot < table.capacity(); slot++) {
      long keyHash = table.keyHash(slot);
      if (keyHash != 0 && table.diesAt(slot) < deadBefore) {
        dead.add(keyHash);
      }
    }
    for (long keyHash : dead) {
      int slot = table.find(keyHash);
      xor(table.peers(slot), segment(keyHash), table.digest(slot));
      table.remove(slot);
    }
    return dead.size();
  }

  /** The digest the trees hold for {@code key}, if they hold one. */
  public synchronized java.util.OptionalLong digestOf(Key key) {
    int slot = table.find(keyHash(key));
    return slot < 0
        ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(table.digest(slot));
  }

  /** The version the trees hold for {@code key}, if any. */
  public synchronized java.util.OptionalLong versionOf(Key key) {
    int slot = table.find(keyHash(key));
    return slot < 0
        ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(table.version(slot));
  }

  /** How many records the trees know. */
  public synchronized int records() {
    return table.size();
  }

  /**
   * The hashes of the nodes at {@code positions} of {@code level} (0 the root, 1 the {@value
   * #FANOUT} nodes below it, 2 the leaves) in the tree shared with {@code peer}.
   *
   * @throws IllegalArgumentException for an unknown peer, level or position
   */
  public long[] hashes(NodeId peer, int level, int[] positions) {
    Integer index = peerIndex.get(peer);
    if (index == null || peer.equals(self)) {
      throw new IllegalArgumentException("no tree is shared with " + peer);
    }
    if (level < 0 || level >= LEVELS) {
      throw new IllegalArgumentException("no tree level " + level);
    }
    int width = level == 0 ? 1 : level == 1 ? FANOUT : LEAVES;
    long[] tree = level == LEVELS - 1 ? leaves[index] : inner[index];
    int offset = level == 1 ? 1 : 0;
    long[] hashes = new long[positions.length];
    synchronized (this) {
      for (int i = 0; i < positions.length; i++) {
        int position = positions[i];
        if (position < 0 || position >= width) {
          throw new IllegalArgumentException("no position " + position + " at level " + level);
        }
        hashes[i] = tree[offset + position];
      }
    }
    return hashes;
  }

  /** Whether the trees cover every stored record (the scan at start has finished). */
  public boolean complete() {
    return complete;
  }

  void markComplete() {
    complete = true;
  }

  /** The nodes of the cluster, in the order the trees index them. */
  List<NodeId> nodes() {
    return nodes;
  }

  NodeId self() {
    return self;
  }
}
