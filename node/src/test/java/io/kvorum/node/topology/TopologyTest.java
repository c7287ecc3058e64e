package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static final Member N1 = new Member(NodeId.of("n1"), "10.0.0.1", 9090);
  private static final Member N2 = new Member(NodeId.of("n2"), "10.0.0.2", 9090);
  private static final Member N3 = new Member(NodeId.of("n3"), "10.0.0.3", 9091);

  @Test
  void knowsEveryMemberAndItsPeers() {
    Topology topology = new Topology(NodeId.of("n2"), List.of(N1, N2, N3));

    assertThat(topology.size()).isEqualTo(3);
    assertThat(topology.ids()).containsExactly(N1.id(), N2.id(), N3.id());
    assertThat(topology.peers()).containsExactly(N1, N3);
    assertThat(topology.member(NodeId.of("n3"))).contains(N3);
    assertThat(topology.member(NodeId.of("n9"))).isEmpty();
  }

  @Test
  void selfMustBeAmongTheMembers() {
    assertThatThrownBy(() -> new Topology(NodeId.of("n9"), List.of(N1, N2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n9");
  }

  @Test
  void duplicateIdsAreRefused() {
    Member n1Elsewhere = new Member(NodeId.of("n1"), "10.0.0.9", 9090);

    assertThatThrownBy(() -> new Topology(NodeId.of("n1"), List.of(N1, N2, n1Elsewhere)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n1")
        .hasMessageContaining("more than once");
  }

  @Test
  void aSingleNodeClusterHasNoPeers() {
    Topology single = Topology.single(NodeId.of("solo"), "localhost", 9090);

    assertThat(single.size()).isEqualTo(1);
    assertThat(single.self()).isEqualTo(NodeId.of("solo"));
    assertThat(single.peers()).isEmpty();
  }

  @Test
  void membersAreCopiedSoLaterChangesDoNotLeakIn() {
    List<Member> members = new ArrayList<>(List.of(N1, N2));
    Topology topology = new Topology(NodeId.of("n1"), members);

    members.add(N3);

    assertThat(topology.size()).isEqualTo(2);
  }

  @Test
  void membersNeedAHostAndAValidPort() {
    assertThatThrownBy(() -> new Member(NodeId.of("n1"), " ", 9090))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Member(NodeId.of("n1"), "h", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Member(NodeId.of("n1"), "h", 65536))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(N3).hasToString("n3=10.0.0.3:9091");
  }
}
