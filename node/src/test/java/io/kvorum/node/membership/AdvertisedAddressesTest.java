package io.kvorum.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Advertised;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.ClusterStateCodec;
import io.kvorum.node.topology.Member;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Members tell each other the HTTP address they advertise through the cluster state (SPEC §1):
 * gossiped whatever the epoch, newest per member, and invisible to a release before them.
 */
class AdvertisedAddressesTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final ClusterState SEED =
      ClusterState.seed(
          List.of(
              new Member(N1, "127.0.0.1", 9090),
              new Member(N2, "127.0.0.1", 9091),
              new Member(N3, "127.0.0.1", 9092)));

  private static Membership member(NodeId id) {
    return new Membership(id, SEED, Optional.empty());
  }

  @Test
  void membersOnOneHostLearnEachOthersPortsByGossip() {
    List<Membership> nodes = List.of(member(N1), member(N2), member(N3));
    for (int i = 0; i < nodes.size(); i++) {
      nodes.get(i).advertise("127.0.0.1:" + (8080 + i), 1_000);
    }

    // One round of gossip each way between n1 and the others, then n1 answers them again.
    for (Membership other : nodes.subList(1, 3)) {
      nodes.get(0).adopt(other.state());
      other.adopt(nodes.get(0).state());
    }
    nodes.get(1).adopt(nodes.get(0).state());

    for (Membership node : nodes) {
      assertThat(node.state().epoch()).isEqualTo(1);
      assertThat(node.state().httpAddress(N1)).contains("127.0.0.1:8080");
      assertThat(node.state().httpAddress(N2)).contains("127.0.0.1:8081");
      assertThat(node.state().httpAddress(N3)).contains("127.0.0.1:8082");
    }
  }

  @Test
  void anAddressOnlyGossipIsNoNewEpochAndNoConflict() {
    Membership n1 = member(N1);
    Membership n2 = member(N2);
    n2.advertise("10.0.0.2:8080", 1_000);

    boolean adopted = n1.adopt(n2.state());

    assertThat(adopted).as("the epoch's state was not adopted, only an address").isFalse();
    assertThat(n1.state().httpAddress(N2)).contains("10.0.0.2:8080");
    assertThat(n1.state().epoch()).isEqualTo(1);
  }

  @Test
  void aRestartedMemberWithAnotherAddressReplacesItsOldOneEvenWithAClockBehind() {
    Membership n1 = member(N1);
    Membership n2 = member(N2);
    n2.advertise("127.0.0.1:8081", 5_000);
    n1.adopt(n2.state());

    // n2 restarts on its stored state, with another port and a wall clock set back.
    Membership restarted = new Membership(N2, n2.state(), Optional.empty());
    restarted.advertise("127.0.0.1:18081", 1_000);
    n1.adopt(restarted.state());
    restarted.adopt(n1.state());

    assertThat(n1.state().httpAddress(N2)).contains("127.0.0.1:18081");
    assertThat(restarted.state().httpAddress(N2)).contains("127.0.0.1:18081");
  }

  @Test
  void addressesOutliveAChangeAndAStateFromAReleaseWithoutThem() {
    Membership n1 = member(N1);
    n1.advertise("127.0.0.1:8080", 1_000);
    n1.propose(s -> s.withJoining(new Member(NodeId.of("n4"), "127.0.0.1", 9093), 2_000));

    // A node of the release before addresses drives the change on: its states carry none.
    ClusterState older = n1.state().readsMoved().withHttp(Map.of());
    assertThat(n1.adopt(older)).isTrue();

    assertThat(n1.state().epoch()).isEqualTo(3);
    assertThat(n1.state().httpAddress(N1)).contains("127.0.0.1:8080");
  }

  @Test
  void theEncodingKeepsAddressesAndAReleaseWithoutThemSeesTheSameEpochState() {
    ClusterState with =
        SEED.withHttp(
            Map.of(N1, new Advertised("127.0.0.1:8080", 7), N3, new Advertised("h:1", 9)));

    assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(with))).isEqualTo(with);
    // What a release before addresses decodes and re-encodes is the form the tie-break compares.
    assertThat(ClusterStateCodec.encodeEpochState(with)).isEqualTo(ClusterStateCodec.encode(SEED));
    assertThat(new String(ClusterStateCodec.encode(SEED), StandardCharsets.UTF_8))
        .doesNotContain("http");
  }

  @Test
  void ofTwoAddressesOfOneMemberTheLaterStampedWinsInEitherOrder() {
    Advertised old = new Advertised("a:1", 1);
    Advertised now = new Advertised("b:2", 2);

    assertThat(Advertised.merge(Map.of(N1, old), Map.of(N1, now))).containsEntry(N1, now);
    assertThat(Advertised.merge(Map.of(N1, now), Map.of(N1, old))).containsEntry(N1, now);
  }
}
