package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RendezvousPlacementTest {
  @ParameterizedTest(name = "{0} and {1}")
  @CsvSource({"node-1, node-2", "n1, n2", "kvorum-0, kvorum-1", "a, b"})
  void twoNodesShareTenThousandKeysEvenly(String first, String second) {
    RendezvousPlacement placement = new RendezvousPlacement(ids(first, second));

    Map<NodeId, Integer> held = firstChoices(placement, 10_000);

    assertThat(held.getOrDefault(NodeId.of(first), 0)).isBetween(4_900, 5_100);
    assertThat(held.getOrDefault(NodeId.of(second), 0)).isBetween(4_900, 5_100);
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 5})
  void firstChoicesAreRoughlyUniform(int nodes) {
    List<NodeId> ids =
        IntStream.rangeClosed(1, nodes).mapToObj(i -> NodeId.of("node-" + i)).toList();
    RendezvousPlacement placement = new RendezvousPlacement(ids);
    int keys = 30_000;
    double mean = (double) keys / nodes;

    Map<NodeId, Integer> held = firstChoices(placement, keys);

    assertThat(held).hasSize(nodes);
    for (NodeId id : ids) {
      assertThat((double) held.get(id)).as("keys on %s", id).isBetween(mean * 0.95, mean * 1.05);
    }
  }

  @Test
  void replicaListsGrowByPrefix() {
    RendezvousPlacement placement = new RendezvousPlacement(ids("a", "b", "c", "d", "e"));
    for (int k = 0; k < 2_000; k++) {
      Key key = Key.utf8("key" + k);
      for (int from = 1; from < 5; from++) {
        assertThat(placement.replicas(key, from + 1))
            .startsWith(placement.replicas(key, from).toArray(NodeId[]::new));
      }
    }
  }

  @Test
  void noNodeIsChosenTwice() {
    RendezvousPlacement placement = new RendezvousPlacement(ids("a", "b", "c", "d", "e"));
    for (int k = 0; k < 2_000; k++) {
      List<NodeId> all = placement.replicas(Key.utf8("key" + k), 5);
      assertThat(all).doesNotHaveDuplicates().hasSize(5);
    }
  }

  @Test
  void deterministicAndIndependentOfTheOrderNodesAreGiven() {
    List<NodeId> ordered = ids("n1", "n2", "n3", "n4", "n5");
    List<NodeId> shuffled = new ArrayList<>(ordered);
    Collections.shuffle(shuffled, new Random(3));
    RendezvousPlacement a = new RendezvousPlacement(ordered);
    RendezvousPlacement b = new RendezvousPlacement(shuffled);
    RendezvousPlacement c = new RendezvousPlacement(ordered.reversed());

    for (int k = 0; k < 2_000; k++) {
      Key key = Key.of(new byte[] {(byte) k, (byte) (k >> 8), 0x00});
      for (int from = 1; from <= 5; from++) {
        assertThat(b.replicas(key, from)).isEqualTo(a.replicas(key, from));
        assertThat(c.replicas(key, from)).isEqualTo(a.replicas(key, from));
      }
    }
    assertThat(a.clusterSize()).isEqualTo(5);
  }

  @Test
  void aSingleNodeHoldsEverything() {
    RendezvousPlacement placement = new RendezvousPlacement(ids("solo"));

    assertThat(placement.replicas(Key.utf8("anything"), 1)).containsExactly(NodeId.of("solo"));
  }

  @Test
  void fromOutsideOneToClusterSizeIsRefused() {
    RendezvousPlacement placement = new RendezvousPlacement(ids("a", "b", "c"));
    Key key = Key.utf8("k");

    assertThatThrownBy(() -> placement.replicas(key, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> placement.replicas(key, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> placement.replicas(key, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3");
  }

  @Test
  void removingANodeMovesOnlyTheKeysItHeld() {
    List<NodeId> five = ids("n1", "n2", "n3", "n4", "n5");
    NodeId removed = NodeId.of("n3");
    List<NodeId> four = five.stream().filter(id -> !id.equals(removed)).toList();
    RendezvousPlacement before = new RendezvousPlacement(five);
    RendezvousPlacement after = new RendezvousPlacement(four);
    int moved = 0;

    for (int k = 0; k < 10_000; k++) {
      Key key = Key.utf8(Integer.toString(k));
      List<NodeId> oldRanking = before.replicas(key, 5);
      List<NodeId> expected = oldRanking.stream().filter(id -> !id.equals(removed)).toList();
      // Every survivor keeps its relative rank, so each replica set only loses the removed node.
      assertThat(after.replicas(key, 4)).isEqualTo(expected);
      if (oldRanking.get(0).equals(removed)) {
        moved++;
      } else {
        assertThat(after.replicas(key, 1)).isEqualTo(before.replicas(key, 1));
      }
    }
    assertThat(moved)
        .as("about a fifth of the keys were on the removed node")
        .isBetween(1_800, 2_200);
  }

  @Test
  void duplicateOrMissingNodesAreRefused() {
    assertThatThrownBy(() -> new RendezvousPlacement(ids("a", "b", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate");
    assertThatThrownBy(() -> new RendezvousPlacement(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Map<NodeId, Integer> firstChoices(Placement placement, int keys) {
    Map<NodeId, Integer> held = new HashMap<>();
    for (int k = 0; k < keys; k++) {
      held.merge(placement.replicas(Key.utf8(Integer.toString(k)), 1).get(0), 1, Integer::sum);
    }
    return held;
  }

  private static List<NodeId> ids(String... ids) {
    return java.util.Arrays.stream(ids).map(NodeId::of).toList();
  }
}
