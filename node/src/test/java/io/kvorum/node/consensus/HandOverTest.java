package io.kvorum.node.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A conditional write whose round lost to another proposer goes to the key's proposer, the first of
 * its acceptors this node reaches (docs/decisions/a-contended-key-is-proposed-by-one-node.md): its
 * answer is the proposer's, later writes of the key go there at once, a proposer of an earlier
 * release leaves the write to run here, and one that could not decide it makes it a 504. The peers
 * are scripted: the first prepare of the key is refused by a higher ballot on both, every later
 * step is taken.
 */
class HandOverTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final byte[] VALUE = {1};
  private static final Quorum QUORUM = new Quorum(2, 3);
  private static final Duration WAIT = Duration.ofSeconds(5);

  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final AtomicInteger prepares = new AtomicInteger();
  private NodeParts node;
  private Coordinator coordinator;

  /** A key whose proposer is another node: the first of its acceptors is not this one. */
  private Key key;

  private NodeId proposer;

  @BeforeEach
  void start() {
    Topology topology =
        new Topology(
            N1,
            IntStream.rangeClosed(1, 3)
                .mapToObj(i -> new Member(NodeId.of("n" + i), "n" + i + ".test", 9090))
                .toList());
    node =
        NodeParts.build(
            TestConfig.in(Path.of("unused"))
                .topology(topology)
                .requestTimeout(Duration.ofSeconds(2))
                .replicationFactor(3)
                .build(),
            new LocalStorage(
                new InMemoryStorageEngine(), new InMemoryHintStore(), new InMemoryAcceptorStore()),
            HybridLogicalClock.start(new MemoryCeilingStore()),
            peers);
    coordinator = node.coordinator();
    for (int i = 0; key == null; i++) {
      Key candidate = Key.utf8("k" + i);
      NodeId first =
          node.cluster().membership().owners().participants(candidate, 3).all().getFirst();
      if (!first.equals(N1)) {
        key = candidate;
        proposer = first;
      }
    }
    // Both peers refuse the first prepare: a higher ballot holds the key, the round lost.
    peers.acceptors(
        request ->
            switch (request) {
              case PaxosProtocol.Prepare prepare when prepares.incrementAndGet() <= 2 ->
                  new Reply.Rejected(prepare.ballot(), above(prepare.ballot()));
              case PaxosProtocol.Prepare prepare ->
                  new Reply.Promise(prepare.ballot(), Optional.empty(), Optional.empty());
              case PaxosProtocol.Accept accept ->
                  new Reply.Accepted(accept.proposal().ballot(), accept.commit());
              default -> throw new IllegalArgumentException(String.valueOf(request));
            });
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void aWriteThatLostARoundIsAnsweredByTheKeysProposerAndTheNextGoesThereAtOnce() {
    Record written = Record.value(Version.of(1_000, 0), VALUE, Record.NO_EXPIRY, 3);
    peers.proposers(propose -> new PaxosProtocol.Proposed.Decided(new Outcome.Applied(written)));

    assertThat(Futures.await(putIfAbsent(), WAIT)).isEqualTo(written.version());
    assertThat(peers.calls("propose"))
        .extracting(ScriptedPeerTransport.Call::peer)
        .containsExactly(proposer);

    int preparesBefore = peers.calls("prepare").size();
    assertThat(Futures.await(putIfAbsent(), WAIT)).isEqualTo(written.version());
    assertThat(peers.calls("prepare")).as("no round here").hasSize(preparesBefore);
    assertThat(peers.calls("propose")).hasSize(2);
    assertThat(node.resources().registry().get("kvorum.paxos.handovers").counter().count())
        .isEqualTo(2);
  }

  @Test
  void aProposerOfAnEarlierReleaseLeavesTheWriteToRunHere() {
    // The scripted proposers answer INVALID, as a node that does not know the message.
    Version version = Futures.await(putIfAbsent(), WAIT);

    assertThat(peers.calls("propose")).hasSize(1);
    assertThat(node.replication().storage().get(key).join()).map(Record::version).contains(version);
  }

  @Test
  void aWriteItsProposerCouldNotDecideAnswers504NamingIt() {
    peers.proposers(
        propose -> new PaxosProtocol.Proposed.Undecided("its acceptors did not answer"));

    assertThat(Futures.failure(putIfAbsent(), WAIT))
        .isInstanceOf(NotEnoughReplicasException.class)
        .hasMessageContaining(proposer.value())
        .hasMessageContaining("its acceptors did not answer");
    assertThat(node.replication().storage().get(key).join()).as("nothing written here").isEmpty();
  }

  private CompletableFuture<Version> putIfAbsent() {
    return coordinator.putIf(key, new Condition.IfAbsent(), VALUE, Duration.ZERO, QUORUM);
  }

  private static Ballot above(Ballot ballot) {
    return new Ballot(new Version(ballot.version().value() + 1), NodeId.of("n3"));
  }
}
