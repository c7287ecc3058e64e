package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A conditional write during a membership change asks the key's pending replica too and needs one
 * more answer for it (Cassandra's Paxos participants); with more than one pending replica it is
 * refused at once, 503 with Retry-After, as Cassandra answers unavailable, and nothing is sent. The
 * peers here carry no Paxos (every prepare to them fails), so a round can only time out: what the
 * 504 names shows whom the rounds asked and how many answers they needed.
 */
class ConditionalWritePendingReplicasTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final NodeId N4 = NodeId.of("n4");
  private static final Quorum TWO_OF_THREE = new Quorum(2, 3);
  private static final byte[] VALUE = {1};

  private final InMemoryAcceptorStore acceptors = new InMemoryAcceptorStore();
  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final NodeParts node =
      NodeParts.build(
          TestConfig.in(Path.of("unused"))
              .topology(new Topology(NodeId.of("n1"), List.of(member(1), member(2), member(3))))
              .requestTimeout(Duration.ofMillis(300))
              .replicationFactor(3)
              .build(),
          new LocalStorage(new InMemoryStorageEngine(), new InMemoryHintStore(), acceptors),
          HybridLogicalClock.start(new MemoryCeilingStore()),
          peers);
  private final Coordinator coordinator = node.coordinator();
  private final Membership membership = node.cluster().membership();

  @AfterEach
  void stop() {
    node.close();
  }

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "n" + i + ".test", 9090);
  }

  @Test
  void withoutAChangeTheRoundsAskTheThreeReplicasAndNeedTwo() {
    Key key = Key.utf8("steady");

    NotEnoughReplicasException timeout = (NotEnoughReplicasException) failure(create(key));

    assertThat(timeout.required()).isEqualTo(2);
    assertThat(asked(timeout)).containsExactlyInAnyOrderElementsOf(membership.state().ids());
  }

  @Test
  void withOnePendingReplicaTheRoundsAskItAndNeedOneMoreAnswer() {
    membership.adopt(membership.state().withJoining(member(4), 0));
    Key key = gaining(1);

    NotEnoughReplicasException timeout = (NotEnoughReplicasException) failure(create(key));

    assertThat(timeout.required()).as("a majority of the natural three, plus n4").isEqualTo(3);
    assertThat(asked(timeout)).hasSize(4).contains(N4);
    assertThat(timeout.failed()).containsKey(N4);
  }

  @Test
  void withTwoPendingReplicasTheWriteIsRefusedAt503AndNothingIsSent() throws Exception {
    membership.adopt(twoJoining(membership.state()));
    Key key = gaining(2);

    Throwable refused = failure(create(key));

    assertThat(refused)
        .isInstanceOf(UnavailableException.class)
        .hasMessageContaining("gives it 2 new replicas (")
        .hasMessageContaining("n4")
        .hasMessageContaining("n5")
        .hasMessageContaining("join of n4")
        .hasMessageContaining("retry once the change has completed");
    FailureKind kind = FailureKind.of(refused);
    assertThat(kind.httpStatus()).isEqualTo(503);
    assertThat(kind.retryAfter()).isTrue();
    assertThat(acceptors.state(key).get())
        .as("this node's acceptor")
        .isEqualTo(AcceptorState.EMPTY);
    assertThat(peers.calls()).as("calls to peers").isEmpty();

    Key other = gaining(1);
    assertThat(failure(create(other)))
        .as("a key that gains one replica in the same state")
        .isInstanceOf(NotEnoughReplicasException.class);
  }

  private CompletableFuture<?> create(Key key) {
    return coordinator.putIf(key, new Condition.IfAbsent(), VALUE, Duration.ZERO, TWO_OF_THREE);
  }

  /** The replicas the 504 names: those that failed and those that had not answered. */
  private static List<NodeId> asked(NotEnoughReplicasException timeout) {
    List<NodeId> asked = new ArrayList<>(timeout.failed().keySet());
    asked.addAll(timeout.pending());
    return asked;
  }

  /** A state kvorum never makes (one change at a time), with n4 and n5 joining at once. */
  private static ClusterState twoJoining(ClusterState current) {
    List<ClusterState.Node> nodes = new ArrayList<>(current.nodes());
    nodes.add(new ClusterState.Node(member(4), MemberState.JOINING));
    nodes.add(new ClusterState.Node(member(5), MemberState.JOINING));
    long epoch = current.epoch() + 1;
    return new ClusterState(
        epoch, nodes, Optional.of(new ClusterState.Change(ClusterState.Kind.JOIN, N4, epoch, 0)));
  }

  /** A key that gains {@code count} replicas for three copies under the current state. */
  private Key gaining(int count) {
    Owners owners = membership.owners();
    for (int i = 0; i < 1000; i++) {
      Key key = Key.utf8("key-" + i);
      if (owners.gained(key, 3).size() == count) {
        return key;
      }
    }
    throw new AssertionError("no key gains " + count + " replicas");
  }

  private static Throwable failure(CompletableFuture<?> request) {
    return Futures.failure(request, WAIT);
  }
}
