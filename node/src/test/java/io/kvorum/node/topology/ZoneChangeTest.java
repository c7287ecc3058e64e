package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A member's zone in the cluster state: kept, gossiped, and changed by a move (SPEC §3, §8). */
class ZoneChangeTest {
  private static final int KEYS = 2_000;

  private static Member member(int i, String zone) {
    return new Member(NodeId.of("n" + i), "host" + i, 9090, Zone.of(zone));
  }

  private static ClusterState cluster(String... zones) {
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < zones.length; i++) {
      members.add(member(i + 1, zones[i]));
    }
    return ClusterState.seed(members);
  }

  @Test
  void aStateWithoutZonesIsEncodedAsBeforeZones() {
    String json = new String(ClusterStateCodec.encode(cluster("", "", "")), StandardCharsets.UTF_8);

    assertThat(json).doesNotContain("zone");
    assertThat(ClusterStateCodec.decode(json.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(cluster("", "", ""));
  }

  @Test
  void zonesAndAMoveSurviveTheEncoding() {
    ClusterState moving = cluster("a", "b", "").withMoving(NodeId.of("n3"), Zone.of("c"), 42);

    ClusterState decoded = ClusterStateCodec.decode(ClusterStateCodec.encode(moving));

    assertThat(decoded).isEqualTo(moving);
    assertThat(decoded.change().orElseThrow().describe()).containsEntry("zone", "c");
  }

  @Test
  void ofTwoEncodingsOfOneEpochTheOneWithZonesWinsTheTieBreak() {
    // A node of the release before zones reads a state with zones and gossips it back without.
    byte[] with = ClusterStateCodec.encode(cluster("a", "b", "c"));
    byte[] without = ClusterStateCodec.encode(cluster("", "", ""));

    assertThat(java.util.Arrays.compare(with, without)).isPositive();
  }

  @Test
  void aMoveIsOneChangeAtATimeAndEndsWithTheNodeInItsNewZone() {
    ClusterState moving = cluster("a", "b", "").withMoving(NodeId.of("n3"), Zone.of("c"), 0);

    assertThatThrownBy(() -> moving.withMoving(NodeId.of("n1"), Zone.of("c"), 0))
        .isInstanceOf(IllegalStateException.class);
    assertThat(moving.ownerZones()).containsEntry(NodeId.of("n3"), Zone.NONE);
    assertThat(moving.targetZones()).containsEntry(NodeId.of("n3"), Zone.of("c"));
    ClusterState done = moving.readsMoved().completed();
    assertThat(done.epoch()).isEqualTo(moving.epoch() + 2);
    assertThat(done.node(NodeId.of("n3")).orElseThrow().member().zone()).isEqualTo(Zone.of("c"));
    assertThat(done.change()).isEmpty();
    assertThat(moving.changeAborted().nodes()).isEqualTo(moving.nodes());
  }

  @Test
  void aMoveToTheZoneANodeIsInIsRefused() {
    assertThatThrownBy(() -> cluster("a", "b").withMoving(NodeId.of("n1"), Zone.of("a"), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void duringAMoveEachRecordReachesItsNewReplicasFromAnOwnerItLeaves() {
    // Zones introduced into a cluster that had none: n4 is the first to name its zone.
    Owners owners =
        new Owners(cluster("", "", "", "", "").withMoving(NodeId.of("n4"), Zone.of("b"), 0));
    int moved = 0;
    for (int from = 1; from <= 5; from++) {
      for (int i = 0; i < KEYS; i++) {
        Key key = Key.utf8("key-" + i);
        List<NodeId> readers = owners.readers(key, from);
        List<NodeId> gained = owners.gained(key, from);
        Optional<NodeId> source = owners.handoffSource(key, from);
        if (gained.isEmpty()) {
          assertThat(source).isEmpty();
          continue;
        }
        moved++;
        assertThat(source).isPresent();
        assertThat(readers).contains(source.get());
        assertThat(owners.targets(key, from)).doesNotContain(source.get());
        Owners.WriteSet writes = owners.writers(key, 2, from);
        assertThat(writes.nodes()).containsAll(readers).containsAll(gained);
      }
    }
    assertThat(moved).as("records that move").isPositive();
  }
}
