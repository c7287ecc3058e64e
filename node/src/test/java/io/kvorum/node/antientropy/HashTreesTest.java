package io.kvorum.node.antientropy;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.topology.RendezvousPlacement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HashTreesTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final List<NodeId> NODES = List.of(N1, N2, N3);
  private static final int[] ALL_LEAVES = IntStream.range(0, HashTrees.LEAVES).toArray();

  private static HashTrees trees(NodeId self) {
    return new HashTrees(self, NODES, new RendezvousPlacement(NODES));
  }

  private static Key key(int i) {
    return Key.utf8("key-" + i);
  }

  private static Record value(long version, String value, int replicas) {
    return Record.value(
        new Version(version), value.getBytes(StandardCharsets.UTF_8), Record.NO_EXPIRY, replicas);
  }

  @Test
  void twoReplicasThatSawTheSameWritesInAnyOrderHaveEqualTrees() {
    HashTrees n1 = trees(N1);
    HashTrees n2 = trees(N2);
    List<int[]> writes = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      for (int v = 1; v <= 3; v++) {
        writes.add(new int[] {i, v});
      }
    }
    for (int[] w : writes) {
      n1.offer(key(w[0]), value(w[1] * 10L, "v" + w[1], 3));
    }
    Collections.shuffle(writes, new Random(7));
    for (int[] w : writes) {
      n2.offer(key(w[0]), value(w[1] * 10L, "v" + w[1], 3));
    }

    assertThat(n1.hashes(N2, 0, new int[] {0})).isEqualTo(n2.hashes(N1, 0, new int[] {0}));
    assertThat(n1.hashes(N2, 0, new int[] {0})[0]).isNotZero();
    assertThat(n1.records()).isEqualTo(2000);
  }

  @Test
  void aMissedWriteShowsInItsKeysSegmentAlone() {
    HashTrees n1 = trees(N1);
    HashTrees n2 = trees(N2);
    for (int i = 0; i < 500; i++) {
      n1.offer(key(i), value(10, "a", 3));
      n2.offer(key(i), value(10, "a", 3));
    }
    n1.offer(key(42), value(20, "newer", 3));

    long[] left = n1.hashes(N2, 2, ALL_LEAVES);
    long[] right = n2.hashes(N1, 2, ALL_LEAVES);
    List<Integer> differing =
        IntStream.range(0, ALL_LEAVES.length).filter(i -> left[i] != right[i]).boxed().toList();
    assertThat(differing).containsExactly(HashTrees.segment(key(42)));

    n2.offer(key(42), value(20, "newer", 3));
    assertThat(n1.hashes(N2, 0, new int[] {0})).isEqualTo(n2.hashes(N1, 0, new int[] {0}));
  }

  @Test
  void aTreeHoldsOnlyTheRecordsBothNodesShouldHold() {
    HashTrees n1 = trees(N1);
    RendezvousPlacement placement = new RendezvousPlacement(NODES);
    int shared = 0;
    for (int i = 0; i < 300; i++) {
      n1.offer(key(i), value(10, "a", 2));
      if (placement.replicas(key(i), 2).containsAll(List.of(N1, N2))) {
        shared++;
      }
    }
    HashTrees n2 = trees(N2);
    for (int i = 0; i < 300; i++) {
      if (placement.replicas(key(i), 2).containsAll(List.of(N1, N2))) {
        n2.offer(key(i), value(10, "a", 2));
      }
    }
    assertThat(shared).isBetween(50, 250);
    assertThat(n1.hashes(N2, 0, new int[] {0})).isEqualTo(n2.hashes(N1, 0, new int[] {0}));
  }

  @Test
  void anOlderRecordOfferedLaterChangesNothingAndATieAsksToBeSettled() {
    HashTrees trees = trees(N1);
    trees.offer(key(1), value(20, "b", 3));
    long[] before = trees.hashes(N2, 0, new int[] {0});

    assertThat(trees.offer(key(1), value(10, "a", 3))).isTrue();
    assertThat(trees.hashes(N2, 0, new int[] {0})).isEqualTo(before);

    assertThat(trees.offer(key(1), value(20, "c", 3))).isFalse();
    trees.settle(key(1), value(20, "c", 3));
    HashTrees fresh = trees(N1);
    fresh.offer(key(1), value(20, "c", 3));
    assertThat(trees.hashes(N2, 0, new int[] {0})).isEqualTo(fresh.hashes(N2, 0, new int[] {0}));
  }

  @Test
  void purgedRecordsAreForgotten() {
    HashTrees trees = trees(N1);
    trees.offer(key(1), Record.tombstone(Version.of(1_000, 0), 3));
    trees.offer(key(2), value(Version.of(1_000, 0).value(), "kept", 3));
    HashTrees expected = trees(N1);
    expected.offer(key(2), value(Version.of(1_000, 0).value(), "kept", 3));

    assertThat(trees.forgetDeadBefore(2_000)).isEqualTo(1);
    assertThat(trees.records()).isEqualTo(1);
    assertThat(trees.hashes(N3, 0, new int[] {0})).isEqualTo(expected.hashes(N3, 0, new int[] {0}));
  }

  /**
   * Levels 0 and 1 are kept as records come, change and go, not folded from the leaves when asked:
   * after new records, newer ones, settled ties and a purge, every inner node still holds the XOR
   * of the leaves below it.
   */
  @Test
  void everyInnerNodeIsTheXorOfTheLeavesBelowIt() {
    HashTrees trees = trees(N1);
    for (int i = 0; i < 3_000; i++) {
      trees.offer(key(i), value(10, "first", 3));
    }
    for (int i = 0; i < 3_000; i += 3) {
      trees.offer(key(i), value(20, "second", 3));
    }
    for (int i = 1; i < 3_000; i += 5) {
      trees.offer(key(i), Record.tombstone(Version.of(1_000, 0), 3));
    }
    trees.offer(key(2), value(10, "tie", 3));
    trees.settle(key(2), value(10, "tie", 3));
    assertThat(trees.forgetDeadBefore(Long.MAX_VALUE)).isPositive();

    for (NodeId peer : List.of(N2, N3)) {
      long[] leaves = trees.hashes(peer, 2, ALL_LEAVES);
      int span = HashTrees.LEAVES / HashTrees.FANOUT;
      long[] folded = new long[HashTrees.FANOUT];
      for (int leaf = 0; leaf < HashTrees.LEAVES; leaf++) {
        folded[leaf / span] ^= leaves[leaf];
      }
      long[] level1 = trees.hashes(peer, 1, IntStream.range(0, HashTrees.FANOUT).toArray());
      assertThat(level1).as("level 1 of %s's tree", peer).containsExactly(folded);
      assertThat(trees.hashes(peer, 0, new int[] {0})[0])
          .as("the root of %s's tree", peer)
          .isEqualTo(Arrays.stream(folded).reduce(0, (a, b) -> a ^ b))
          .isNotZero();
    }
  }

  @Test
  void theDigestTableKeepsEveryEntryThroughGrowthAndRemoval() {
    DigestTable table = new DigestTable();
    Random random = new Random(3);
    long[] keys = random.longs(20_000).toArray();
    for (long k : keys) {
      table.put(k, k + 1, k + 2, k + 3, 1);
    }
    for (int i = 0; i < keys.length; i += 2) {
      table.remove(table.find(keys[i]));
    }
    assertThat(table.size()).isEqualTo(keys.length / 2);
    for (int i = 0; i < keys.length; i++) {
      int slot = table.find(keys[i]);
      if (i % 2 == 0) {
        assertThat(slot).isEqualTo(-1);
      } else {
        assertThat(table.digest(slot)).isEqualTo(keys[i] + 2);
      }
    }
  }
}
