package io.kvorum.node.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.ForwardingStorageEngine;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a conditional write's acceptors commit it, and what it answers when they fail.
 *
 * <ul>
 *   <li>This node's acceptor accepts first, and the others store the value as they accept it: two
 *       round trips and no commit; an acceptor of 0.2.0, which ignores the request, gets the commit
 *       through the write path, and so does one that missed the accept, after the answer.
 *   <li>A write that failed after its accepts may have stored the value on a replica is finished in
 *       the background once the acceptors answer again.
 *   <li>Failures get the failure table's answer, as a plain write's ({@link FailureKind}): a full
 *       disk on a majority of the acceptors is 507 at once, not a retry until the request timeout
 *       and 504; acceptors of a release without Paxos 503 at once; failures a retry may mend are
 *       retried.
 * </ul>
 */
class ConditionalWriteAcceptorsTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.UTF_8));
  private static final byte[] VALUE = {1};
  private static final Duration NO_TTL = Duration.ZERO;
  private static final Quorum QUORUM = new Quorum(2, 3);
  private static final ScriptedPeerTransport.Outcome FAIL = ScriptedPeerTransport.Outcome.FAIL;

  /** Far above the wait of {@link #failure}: an answer within that wait came at once. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private static final Duration WAIT = Duration.ofSeconds(5);

  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private volatile boolean localDiskFull;

  /** Whether this node's records refuse every put, as a full disk does. */
  private volatile boolean localRecordsFull;

  private NodeParts node;

  private Coordinator coordinator(Duration requestTimeout) {
    Topology topology =
        new Topology(
            N1,
            List.of(
                new Member(N1, "n1.test", 9090),
                new Member(N2, "n2.test", 9090),
                new Member(N3, "n3.test", 9090)));
    node =
        NodeParts.build(
            TestConfig.in(Path.of("unused"))
                .topology(topology)
                .requestTimeout(requestTimeout)
                .replicationFactor(3)
                .build(),
            new LocalStorage(
                new ForwardingStorageEngine(new InMemoryStorageEngine()) {
                  @Override
                  public CompletableFuture<Void> put(Key key, Record record) {
                    return localRecordsFull
                        ? CompletableFuture.failedFuture(noSpace())
                        : super.put(key, record);
                  }
                },
                new InMemoryHintStore(),
                new FullDisk()),
            HybridLogicalClock.start(new MemoryCeilingStore()),
            peers);
    return node.coordinator();
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aConditionalWriteWhoseAcceptorsDisksAreFullAnswers507AtOnce() {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    localDiskFull = true;
    peers.script(
        call -> {
          throw noSpace();
        });

    Throwable failure =
        failure(
            coordinator.putIf(
                KEY, new Condition.IfAbsent(), VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure)
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE));
    assertThat(FailureKind.of(failure).httpStatus()).isEqualTo(507);
    assertThat(peers.calls("prepare")).as("one round, not retried").hasSize(2);
  }

  /**
   * Acceptors of a release before conditional writes (0.2.0 as released) refuse the prepare as a
   * request they do not know: the write answers 503 at once, naming them, not 504 at the request
   * timeout (which would say it may have applied).
   */
  @Test
  void acceptorsOfAReleaseWithoutPaxosAnswer503AtOnceNamingThem() {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    peers.script(
        call -> {
          throw new InvalidRequestException(null, "a request without an operation");
        });

    Throwable failure =
        failure(
            coordinator.putIf(
                KEY, new Condition.IfAbsent(), VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure).isInstanceOf(UnavailableException.class).hasMessageContaining("[n2, n3]");
    assertThat(FailureKind.of(failure).httpStatus()).isEqualTo(503);
    assertThat(peers.calls("prepare")).as("one round, not retried").hasSize(2);
    assertThat(stored()).as("nothing written").isEmpty();
  }

  @Test
  void aMajorityOfAcceptorsSilentIsRetriedUntilTheRequestTimeoutThen504() {
    Coordinator coordinator = coordinator(Duration.ofMillis(500));
    peers.script(call -> ScriptedPeerTransport.Outcome.FAIL);

    Throwable failure =
        failure(
            coordinator.putIf(
                KEY, new Condition.IfAbsent(), VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure).isInstanceOf(NotEnoughReplicasException.class);
    assertThat(peers.calls("prepare").size()).as("rounds retried").isGreaterThan(2);
  }

  @Test
  void theOtherAcceptorsStoreTheValueAsTheyAcceptItSoNoCommitIsSent() throws Exception {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    List<PaxosProtocol.Accept> accepts = new CopyOnWriteArrayList<>();
    peers.acceptors(request -> acceptor(request, accepts, true));

    Version written =
        answer(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM));

    assertThat(peers.calls("prepare")).hasSize(2);
    assertThat(accepts).hasSize(2).allMatch(PaxosProtocol.Accept::commit);
    assertThat(peers.calls("write")).as("no commit").isEmpty();
    assertThat(stored()).map(Record::version).contains(written);
    assertThat(paxos("phases", "phase", "commit")).isZero();
  }

  @Test
  void aWriteTheOtherTwoAcceptorsStoredIsAnsweredWithoutThisNodesCopy() throws Exception {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    peers.acceptors(request -> acceptor(request, new CopyOnWriteArrayList<>(), true));
    // This node's own copy never comes: ack=2 is met by the two copies the accepts stored.
    localRecordsFull = true;

    Version written =
        answer(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM));

    assertThat(written).isNotNull();
    assertThat(peers.calls("write")).as("no commit").isEmpty();
  }

  @Test
  void aWriteOneOtherAcceptorStoredFailsWhenThisNodesCopyCannotBeStored() {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    peers.acceptors(request -> acceptor(request, new CopyOnWriteArrayList<>(), true));
    peers.script(call -> call.operation().equals("accept") && call.peer().equals(N3) ? FAIL : null);
    localRecordsFull = true;

    assertThat(failure(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM)))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE));
  }

  @Test
  void anAcceptorOf020ThatIgnoresTheCommitGetsItThroughTheWritePath() throws Exception {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    peers.acceptors(request -> acceptor(request, new CopyOnWriteArrayList<>(), false));

    Version written =
        answer(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM));

    assertThat(peers.calls("write"))
        .extracting(ScriptedPeerTransport.Call::peer)
        .containsExactlyInAnyOrder(N2, N3);
    assertThat(stored()).map(Record::version).contains(written);
    assertThat(paxos("phases", "phase", "commit")).isEqualTo(1);
  }

  @Test
  void anAcceptorThatMissedTheAcceptGetsTheValueAfterTheAnswer() throws Exception {
    Coordinator coordinator = coordinator(REQUEST_TIMEOUT);
    peers.acceptors(request -> acceptor(request, new CopyOnWriteArrayList<>(), true));
    peers.script(call -> call.operation().equals("accept") && call.peer().equals(N3) ? FAIL : null);

    answer(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM));

    assertThat(peers.calls("write")).extracting(ScriptedPeerTransport.Call::peer).contains(N3);
  }

  @Test
  void aWriteThatFailedAfterItsAcceptsIsFinishedOnceTheAcceptorsAnswer() {
    Coordinator coordinator = coordinator(Duration.ofMillis(300));
    peers.acceptors(request -> acceptor(request, new CopyOnWriteArrayList<>(), true));
    // Both accepts go unanswered: either may have been taken, the value stored and so chosen.
    peers.script(call -> call.operation().equals("accept") ? FAIL : null);

    assertThat(failure(coordinator.putIf(KEY, new Condition.IfAbsent(), VALUE, NO_TTL, QUORUM)))
        .isInstanceOf(NotEnoughReplicasException.class);
    assertThat(stored()).as("not known chosen, so not committed here").isEmpty();

    peers.script(call -> null);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(paxos("finishes", "outcome", "finished")).isEqualTo(1));
    assertThat(stored()).map(Record::value).contains(VALUE);
  }

  /** A peer's acceptor that takes every ballot; with {@code commits}, commits when asked. */
  private static Reply acceptor(
      Object request, List<PaxosProtocol.Accept> accepts, boolean commits) {
    return switch (request) {
      case PaxosProtocol.Prepare prepare ->
          new Reply.Promise(prepare.ballot(), Optional.empty(), Optional.empty());
      case PaxosProtocol.Accept accept -> {
        accepts.add(accept);
        yield new Reply.Accepted(accept.proposal().ballot(), commits && accept.commit());
      }
      default -> throw new IllegalArgumentException(String.valueOf(request));
    };
  }

  private Optional<Record> stored() {
    return node.replication().storage().get(KEY).join();
  }

  private double paxos(String name, String tag, String value) {
    return node.resources()
        .registry()
        .get("kvorum.paxos." + name)
        .tag(tag, value)
        .counter()
        .count();
  }

  private static <T> T answer(CompletableFuture<T> request) throws Exception {
    return request.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static StorageException noSpace() {
    return new StorageException(StorageException.Kind.NO_SPACE, "paxos step", KEY, null);
  }

  private static Throwable failure(CompletableFuture<?> request) {
    return Futures.failure(request, WAIT);
  }

  /** This node's acceptor states, refusing every step while its disk is full. */
  private final class FullDisk implements AcceptorStore {
    private final InMemoryAcceptorStore states = new InMemoryAcceptorStore();

    @Override
    public CompletableFuture<Reply> step(
        Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
      return localDiskFull
          ? CompletableFuture.failedFuture(noSpace())
          : states.step(key, transition);
    }

    @Override
    public CompletableFuture<AcceptorState> state(Key key) {
      return states.state(key);
    }

    @Override
    public Version floor() {
      return states.floor();
    }

    @Override
    public CompletableFuture<Version> raiseFloor(Version floor) {
      return states.raiseFloor(floor);
    }

    @Override
    public CompletableFuture<List<Key>> keys(Optional<Key> after, int limit) {
      return states.keys(after, limit);
    }

    @Override
    public CompletableFuture<Integer> purge(Map<Key, Optional<Record>> stored) {
      return states.purge(stored);
    }
  }
}
