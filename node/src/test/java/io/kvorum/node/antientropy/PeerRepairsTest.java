package io.kvorum.node.antientropy;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The per-peer repair series follow the membership: a joined peer has them, a removed one not. */
class PeerRepairsTest {
  private static final NodeId A = new NodeId("a");
  private static final NodeId B = new NodeId("b");
  private static final NodeId C = new NodeId("c");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private Set<String> peersWith(String meter) {
    return registry.find(meter).meters().stream()
        .map(Meter::getId)
        .map(id -> id.getTag("peer"))
        .collect(Collectors.toSet());
  }

  @Test
  void aJoinedPeerGetsItsSeriesAndARemovedOneLosesThem() {
    PeerRepairs repairs = new PeerRepairs(List.of(A, B), registry);
    repairs.completed(A, 5_000, 7);
    repairs.completed(B, 6_000, 1);

    repairs.follow(List.of(A, C));

    for (String meter :
        List.of(
            "kvorum.repair.peer.last.completed.timestamp",
            "kvorum.repair.peer.last.completed",
            "kvorum.repair.peer.last.records.repaired",
            "kvorum.repair.peer.records.repaired.total")) {
      assertThat(peersWith(meter)).as(meter).containsExactlyInAnyOrder("a", "c");
    }
    assertThat(
            registry
                .get("kvorum.repair.peer.last.completed.timestamp")
                .tag("peer", "a")
                .gauge()
                .value())
        .as("a peer that stays keeps its figures")
        .isEqualTo(5.0);
    assertThat(
            registry
                .get("kvorum.repair.peer.last.completed.timestamp")
                .tag("peer", "c")
                .gauge()
                .value())
        .isZero();
  }

  @Test
  void anExchangeThatEndsAfterItsPeerLeftDoesNotBringItBack() {
    PeerRepairs repairs = new PeerRepairs(List.of(A, B), registry);
    repairs.follow(List.of(A));
    repairs.completed(B, 9_000, 3);
    repairs.failed(B, "gone");

    assertThat(repairs.get(B)).isEqualTo(AntiEntropy.PeerRepair.NEVER);
    assertThat(peersWith("kvorum.repair.peer.last.records.repaired")).containsExactly("a");

    repairs.follow(List.of(A, B));
    assertThat(peersWith("kvorum.repair.peer.last.records.repaired"))
        .as("a peer that comes back is tracked afresh")
        .containsExactlyInAnyOrder("a", "b");
  }
}
