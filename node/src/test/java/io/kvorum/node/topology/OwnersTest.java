package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who streams what in a membership change: each new replica of a record from one owner. */
class OwnersTest {
  private static final int KEYS = 2_000;

  private static ClusterState seed(int nodes) {
    List<Member> members = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      members.add(member(i));
    }
    return ClusterState.seed(members);
  }

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "host" + i, 9090);
  }

  private static Key key(int i) {
    return Key.utf8("key-" + i);
  }

  @Test
  void aJoiningNodeGetsEachRecordItGainsFromTheOwnerItDisplaces() {
    NodeId joining = NodeId.of("n6");
    Owners owners = new Owners(seed(5).withJoining(member(6), 0));
    int gainedByJoiner = 0;
    for (int from = 1; from <= 5; from++) {
      for (int i = 0; i < KEYS; i++) {
        List<NodeId> readers = owners.readers(key(i), from);
        List<NodeId> targets = owners.targets(key(i), from);
        Optional<NodeId> source = owners.handoffSource(key(i), from);
        if (!targets.contains(joining)) {
          assertThat(owners.gained(key(i), from)).isEmpty();
          assertThat(source).isEmpty();
          continue;
        }
        gainedByJoiner++;
        assertThat(owners.gained(key(i), from)).containsExactly(joining);
        List<NodeId> displaced = new ArrayList<>(readers);
        displaced.removeAll(targets);
        assertThat(displaced).hasSize(1);
        assertThat(source).contains(displaced.get(0));
      }
    }
    // Rendezvous hashing gives the sixth node about from/6 of the keys, for each from.
    assertThat(gainedByJoiner).isBetween(KEYS * 15 / 6 * 9 / 10, KEYS * 15 / 6 * 11 / 10);
  }

  @Test
  void aDecommissionedNodeIsTheSourceOfEveryRecordItHeld() {
    NodeId leaving = NodeId.of("n2");
    Owners owners = new Owners(seed(4).withLeaving(leaving, ClusterState.Kind.DECOMMISSION, 0));
    for (int i = 0; i < KEYS; i++) {
      boolean held = owners.readers(key(i), 3).contains(leaving);
      assertThat(owners.handoffSource(key(i), 3))
          .isEqualTo(held ? Optional.of(leaving) : Optional.empty());
      assertThat(owners.gained(key(i), 3)).hasSize(held ? 1 : 0);
    }
  }

  @Test
  void aRemovedNodesRecordsComeFromTheFirstOwnerThatStays() {
    NodeId removed = NodeId.of("n3");
    Owners owners = new Owners(seed(4).withLeaving(removed, ClusterState.Kind.REMOVE, 0));
    for (int i = 0; i < KEYS; i++) {
      List<NodeId> readers = owners.readers(key(i), 3);
      if (!readers.contains(removed)) {
        assertThat(owners.handoffSource(key(i), 3)).isEmpty();
        continue;
      }
      NodeId firstStaying = readers.get(readers.get(0).equals(removed) ? 1 : 0);
      assertThat(owners.handoffSource(key(i), 3)).contains(firstStaying);
    }
  }

  @Test
  void aRecordWithMoreCopiesThanOwnersGetsItsNewCopyFromItsFirstOwner() {
    // Three copies asked for while two nodes remain, then a third joins: no owner is displaced.
    Owners owners = new Owners(seed(2).withJoining(member(3), 0));
    for (int i = 0; i < KEYS; i++) {
      assertThat(owners.gained(key(i), 3)).containsExactly(NodeId.of("n3"));
      assertThat(owners.handoffSource(key(i), 3)).contains(owners.readers(key(i), 3).get(0));
    }
  }

  @Test
  void withoutAChangeNothingIsHandedOff() {
    Owners owners = new Owners(seed(3));
    for (int i = 0; i < 100; i++) {
      assertThat(owners.gained(key(i), 3)).isEmpty();
      assertThat(owners.handoffSource(key(i), 3)).isEmpty();
    }
  }

  /**
   * A state with two nodes joining at once, which kvorum never makes (one change at a time) but a
   * conditional write must still refuse safely: keys can gain both.
   */
  private static ClusterState twoJoining() {
    List<ClusterState.Node> nodes = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      nodes.add(
          new ClusterState.Node(member(i), i <= 3 ? MemberState.NORMAL : MemberState.JOINING));
    }
    return new ClusterState(
        2,
        nodes,
        Optional.of(new ClusterState.Change(ClusterState.Kind.JOIN, NodeId.of("n4"), 2, 0)));
  }

  @Test
  void paxosParticipantsAreTheNaturalReplicasAndEveryPendingOne() {
    Owners steady = new Owners(seed(3));
    Owners.Participants none = steady.participants(key(0), 3);
    assertThat(none.natural()).containsExactlyElementsOf(steady.readers(key(0), 3));
    assertThat(none.pending()).isEmpty();
    assertThat(none.all()).isEqualTo(none.natural());
    assertThat(none.required()).isEqualTo(2);

    Owners joining = new Owners(seed(3).withJoining(member(4), 0));
    Owners.Participants one = joining.participants(keyGaining(joining, 1), 3);
    assertThat(one.pending()).containsExactly(NodeId.of("n4"));
    assertThat(one.all()).hasSize(4).endsWith(NodeId.of("n4"));
    assertThat(one.required()).as("a majority of the three natural ones, plus n4").isEqualTo(3);

    Owners.Participants fewOwners =
        new Owners(seed(2).withJoining(member(3), 0)).participants(key(0), 3);
    assertThat(fewOwners.natural()).hasSize(2);
    assertThat(fewOwners.required()).as("all three").isEqualTo(3);

    Owners twice = new Owners(twoJoining());
    Owners.Participants two = twice.participants(keyGaining(twice, 2), 3);
    assertThat(two.pending()).containsExactlyInAnyOrder(NodeId.of("n4"), NodeId.of("n5"));
    assertThat(two.all()).hasSize(5);
    assertThat(two.required()).isEqualTo(4);
  }

  @Test
  void aDecommissionGivesTheKeysOfTheLeavingNodeOnePendingReplica() {
    NodeId leaving = NodeId.of("n4");
    Owners owners = new Owners(seed(4).withLeaving(leaving, ClusterState.Kind.DECOMMISSION, 0));
    for (int i = 0; i < 100; i++) {
      Owners.Participants participants = owners.participants(key(i), 3);
      boolean held = participants.natural().contains(leaving);
      assertThat(participants.pending()).hasSize(held ? 1 : 0);
      assertThat(participants.required()).isEqualTo(held ? 3 : 2);
    }
  }

  /** The first key that gains {@code count} replicas for three copies. */
  private static Key keyGaining(Owners owners, int count) {
    for (int i = 0; i < KEYS; i++) {
      if (owners.gained(key(i), 3).size() == count) {
        return key(i);
      }
    }
    throw new AssertionError("no key gains " + count + " replicas");
  }
}
