package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Replicas spread over zones (SPEC §3), as Cassandra's NetworkTopologyStrategy over racks. */
class ZonedPlacementTest {
  private static final int KEYS = 20_000;

  /** Nodes n1.. placed round the zones given, one zone name per node. */
  private static Map<NodeId, Zone> nodes(String... zones) {
    Map<NodeId, Zone> each = new LinkedHashMap<>();
    for (int i = 0; i < zones.length; i++) {
      each.put(NodeId.of("n" + (i + 1)), Zone.of(zones[i]));
    }
    return each;
  }

  private static Key key(int i) {
    return Key.utf8(Integer.toString(i));
  }

  private static Map<Zone, Integer> perZone(List<NodeId> replicas, Map<NodeId, Zone> zones) {
    Map<Zone, Integer> count = new HashMap<>();
    replicas.forEach(node -> count.merge(zones.get(node), 1, Integer::sum));
    return count;
  }

  @Test
  void sixNodesInThreeZonesPutEveryKeysThreeReplicasInThreeZones() {
    Map<NodeId, Zone> zones = nodes("a", "a", "b", "b", "c", "c");
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    for (int i = 0; i < KEYS; i++) {
      assertThat(perZone(placement.replicas(key(i), 3), zones))
          .as("key %d", i)
          .containsOnlyKeys(Zone.of("a"), Zone.of("b"), Zone.of("c"));
    }
  }

  @Test
  void fourNodesInTwoZonesGiveEveryKeyAReplicaInEachZoneAndTwoOfFourEach() {
    Map<NodeId, Zone> zones = nodes("a", "a", "b", "b");
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    for (int i = 0; i < KEYS; i++) {
      assertThat(perZone(placement.replicas(key(i), 2), zones)).hasSize(2);
      assertThat(perZone(placement.replicas(key(i), 3), zones)).hasSize(2);
      assertThat(perZone(placement.replicas(key(i), 4), zones).values()).containsOnly(2);
    }
  }

  @Test
  void withFewerZonesThanCopiesNoZoneHoldsTwoMoreThanAnotherThatHasNodesLeft() {
    // Uneven: a has 4 nodes, b 2, c 1.
    Map<NodeId, Zone> zones = nodes("a", "a", "a", "a", "b", "b", "c");
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    Map<Zone, Integer> sizes = perZone(List.copyOf(zones.keySet()), zones);
    for (int i = 0; i < KEYS / 4; i++) {
      for (int from = 1; from <= zones.size(); from++) {
        Map<Zone, Integer> held = perZone(placement.replicas(key(i), from), zones);
        int least =
            sizes.keySet().stream()
                .filter(z -> held.getOrDefault(z, 0) < sizes.get(z))
                .mapToInt(z -> held.getOrDefault(z, 0))
                .min()
                .orElse(Integer.MAX_VALUE - 1);
        for (int count : held.values()) {
          assertThat(count).as("key %d, from %d: %s", i, from, held).isLessThanOrEqualTo(least + 1);
        }
      }
    }
  }

  @Test
  void replicaListsStillGrowByPrefix() {
    Map<NodeId, Zone> zones = nodes("a", "a", "a", "b", "b", "c", "c", "c", "c");
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    for (int i = 0; i < KEYS / 4; i++) {
      for (int from = 1; from < zones.size(); from++) {
        assertThat(placement.replicas(key(i), from + 1))
            .startsWith(placement.replicas(key(i), from).toArray(NodeId[]::new));
      }
    }
  }

  @Test
  void withoutZonesPlacementIsTheZoneBlindOneSoAnUpgradeMovesNothing() {
    List<NodeId> ids = IntStream.rangeClosed(1, 7).mapToObj(i -> NodeId.of("n" + i)).toList();
    Map<NodeId, Zone> unnamed = new LinkedHashMap<>();
    ids.forEach(id -> unnamed.put(id, Zone.NONE));
    RendezvousPlacement blind = new RendezvousPlacement(ids);
    RendezvousPlacement zoned = RendezvousPlacement.zoned(unnamed);
    for (int i = 0; i < KEYS / 4; i++) {
      for (int from = 1; from <= ids.size(); from++) {
        assertThat(zoned.replicas(key(i), from)).isEqualTo(blind.replicas(key(i), from));
      }
    }
  }

  @Test
  void aNodesFirstReplicasDoNotDependOnZones() {
    Map<NodeId, Zone> zones = nodes("a", "a", "b", "b", "c", "c");
    RendezvousPlacement blind = new RendezvousPlacement(zones.keySet());
    RendezvousPlacement zoned = RendezvousPlacement.zoned(zones);
    for (int i = 0; i < KEYS / 4; i++) {
      assertThat(zoned.replicas(key(i), 1)).isEqualTo(blind.replicas(key(i), 1));
    }
  }

  @ParameterizedTest(name = "{0} nodes per zone")
  @ValueSource(ints = {2, 3})
  void loadIsEvenAcrossTheNodesOfAZone(int perZone) {
    String[] names = new String[perZone * 3];
    for (int i = 0; i < names.length; i++) {
      names[i] = "z" + (i % 3);
    }
    Map<NodeId, Zone> zones = nodes(names);
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    Map<NodeId, Integer> held = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      placement.replicas(key(i), 3).forEach(node -> held.merge(node, 1, Integer::sum));
    }
    double mean = KEYS * 3.0 / names.length;
    for (NodeId node : zones.keySet()) {
      assertThat((double) held.get(node))
          .as("keys on %s", node)
          .isBetween(mean * 0.95, mean * 1.05);
    }
  }

  @Test
  void aJoinInAZoneGainsEachKeyAtMostTheJoiningNode() {
    Map<NodeId, Zone> before = nodes("a", "a", "b", "b", "c");
    Map<NodeId, Zone> after = new LinkedHashMap<>(before);
    NodeId joining = NodeId.of("n9");
    after.put(joining, Zone.of("c"));
    RendezvousPlacement old = RendezvousPlacement.zoned(before);
    RendezvousPlacement next = RendezvousPlacement.zoned(after);
    for (int i = 0; i < KEYS / 4; i++) {
      for (int from = 1; from <= before.size(); from++) {
        Set<NodeId> gained = new HashSet<>(next.replicas(key(i), from));
        old.replicas(key(i), from).forEach(gained::remove);
        assertThat(gained).isSubsetOf(joining);
      }
    }
  }

  @Test
  void theReplicasAKeyMayHaveAmongSomeNodesBoundWhatEveryKeyHasThere() {
    Map<NodeId, Zone> zones = nodes("a", "a", "a", "b", "b", "c", "c");
    RendezvousPlacement placement = RendezvousPlacement.zoned(zones);
    List<NodeId> ids = List.copyOf(zones.keySet());
    java.util.Random random = new java.util.Random(24);
    for (int round = 0; round < 40; round++) {
      Set<NodeId> lost = new HashSet<>();
      ids.stream().filter(id -> random.nextInt(3) == 0).forEach(lost::add);
      for (int from = 1; from <= ids.size(); from++) {
        int most = 0;
        for (int i = 0; i < 2_000; i++) {
          Set<NodeId> there = new HashSet<>(placement.replicas(key(i), from));
          there.retainAll(lost);
          most = Math.max(most, there.size());
        }
        assertThat(placement.mostReplicasAmong(lost, from))
            .as("lost %s, from %d", lost, from)
            .isEqualTo(most);
      }
    }
    Set<NodeId> zoneA = Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
    assertThat(placement.mostReplicasAmong(zoneA, 3)).isEqualTo(1);
    assertThat(new RendezvousPlacement(ids).mostReplicasAmong(zoneA, 3)).isEqualTo(3);
    assertThat(new RendezvousPlacement(ids).mostReplicasAmong(zoneA, 2)).isEqualTo(2);
  }
}
