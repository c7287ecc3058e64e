package io.kvorum.node.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.ScriptedPeerTransport.Outcome;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ResilientPeerTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration OPEN_FOR = Duration.ofMillis(200);
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final Key KEY = Key.utf8("k");
  private static final Record RECORD =
      Record.value(Version.of(1_700_000_000_000L, 0), new byte[] {1});

  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ResilientPeerTransport resilient =
      new ResilientPeerTransport(peers, 2, OPEN_FOR, registry);
  private final PeerCalls transport = new PeerCalls(resilient, NodeId.of("n1"));

  @AfterEach
  void close() {
    peers.releaseAll();
    transport.close();
  }

  // ---- circuit breaker ------------------------------------------------------------------------

  @Test
  void callsGoThroughToTheDelegateWhileThePeerAnswers() {
    peers.readAnswers(call -> Optional.of(RECORD));

    assertThat(await(transport.read(N2, KEY))).contains(RECORD);
    await(transport.write(N2, KEY, RECORD));
    assertThat(await(transport.hello(N2))).isZero();

    assertThat(peers.calls()).hasSize(3);
    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(true, "circuit closed"));
  }

  @Test
  void aPeerThatKeepsFailingIsRefusedAtOnceWithoutBeingCalled() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);
    int callsBefore = peers.calls().size();

    CompletableFuture<Optional<Record>> read = transport.read(N2, KEY);
    CompletableFuture<Void> write = transport.write(N2, KEY, RECORD);

    assertThat(read).as("refused without waiting").isCompletedExceptionally();
    assertThat(write).isCompletedExceptionally();
    assertThat(failure(read))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("circuit breaker is open");
    assertThat(((PeerUnavailableException) failure(write)).peer()).isEqualTo(N2);
    assertThat(peers.calls()).as("the delegate was not called").hasSize(callsBefore);
    PeerTransport.PeerState state = transport.state(N2);
    assertThat(state.reachable()).isFalse();
    assertThat(state.detail()).contains("open");
  }

  @Test
  void fewerThanFiveCallsDoNotOpenTheBreaker() {
    peers.answer(N2, Outcome.FAIL);
    for (int i = 0; i < 4; i++) {
      assertThat(failure(transport.read(N2, KEY))).isInstanceOf(PeerUnavailableException.class);
    }

    transport.read(N2, KEY);

    assertThat(peers.calls()).as("the fifth call still reached the peer").hasSize(5);
  }

  @Test
  void aPeerFailingLessThanHalfItsCallsStaysClosed() {
    peers.script(call -> peers.calls().size() % 3 == 0 ? Outcome.FAIL : Outcome.SUCCEED);

    for (int i = 0; i < 30; i++) {
      transport.read(N2, KEY).exceptionally(error -> null).join();
    }

    assertThat(peers.calls()).hasSize(30);
    assertThat(transport.state(N2).reachable()).isTrue();
  }

  @Test
  void anOpenBreakerForOnePeerLeavesTheOthersAlone() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);

    assertThat(await(transport.read(N3, KEY))).isEmpty();

    assertThat(peers.calls("read")).extracting(c -> c.peer()).endsWith(N3);
    assertThat(transport.state(N3).reachable()).isTrue();
    assertThat(transport.state(N3).detail()).isEqualTo("circuit closed");
  }

  @Test
  void afterTheOpenDurationTrialCallsGoThroughAndSuccessesCloseIt() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);
    peers.answer(N2, Outcome.SUCCEED);

    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(transport.state(N2).detail()).isEqualTo("circuit half_open"));
    int callsBefore = peers.calls().size();
    for (int i = 0; i < 3; i++) {
      await(transport.read(N2, KEY));
    }

    assertThat(peers.calls()).hasSize(callsBefore + 3);
    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(true, "circuit closed"));
    assertThat(await(transport.read(N2, KEY))).isEmpty();
  }

  @Test
  void failingTrialCallsOpenTheBreakerAgain() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);

    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(transport.state(N2).detail()).isEqualTo("circuit half_open"));
    for (int i = 0; i < 3; i++) {
      assertThat(failure(transport.read(N2, KEY))).isInstanceOf(PeerUnavailableException.class);
    }

    assertThat(transport.state(N2).detail()).isEqualTo("circuit open");
  }

  @ParameterizedTest
  @MethodSource("answersOfALivePeer")
  void aPeerThatAnswersWithErrorsOfItsOwnKeepsItsBreakerClosed(RuntimeException answer) {
    peers.answer(N2, Outcome.FAIL).failWith(call -> answer);

    for (int i = 0; i < 20; i++) {
      assertThat(failure(transport.write(N2, KEY, RECORD))).isSameAs(answer);
    }

    assertThat(peers.calls()).as("every call reached the peer").hasSize(20);
    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(true, "circuit closed"));
  }

  static List<RuntimeException> answersOfALivePeer() {
    return List.of(
        new StorageException(StorageException.Kind.NO_SPACE, "put", KEY, null),
        new StorageException(StorageException.Kind.FAILURE, "put", KEY, null),
        new OverloadedException("storage"),
        new InvalidRequestException(null, "bad"));
  }

  @Test
  void aPeerThatIsShuttingDownOpensItsBreaker() {
    peers.answer(N2, Outcome.FAIL).failWith(call -> new UnavailableException("shutting down"));

    for (int i = 0; i < 5; i++) {
      assertThat(failure(transport.read(N2, KEY))).isInstanceOf(UnavailableException.class);
    }

    assertThat(transport.state(N2).detail()).isEqualTo("circuit open");
  }

  @Test
  void aPeerThatAnnouncesItselfIsCalledAgainAtOnce() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);
    peers.answer(N2, Outcome.SUCCEED);

    transport.peerAnnounced(N2);

    assertThat(peers.announced()).as("forwarded to the delegate").containsExactly(N2);
    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(true, "circuit closed"));
    int callsBefore = peers.calls().size();
    await(transport.write(N2, KEY, RECORD));
    assertThat(peers.calls()).hasSize(callsBefore + 1);
  }

  /**
   * Was: failures from before the peer came back stayed in a closed breaker's window, so a node
   * that started before its peers opened its breaker to a peer at the peer's first answers.
   */
  @Test
  void aPeerThatAnnouncesItselfIsNotHeldToTheFailuresOfItsAbsence() {
    peers.answer(N2, Outcome.FAIL);
    for (int i = 0; i < 3; i++) {
      failure(transport.write(N2, KEY, RECORD));
    }
    assertThat(transport.state(N2).detail()).isEqualTo("circuit closed");
    peers.answer(N2, Outcome.SUCCEED);

    transport.peerAnnounced(N2);
    await(transport.write(N2, KEY, RECORD));
    await(transport.write(N2, KEY, RECORD));

    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(true, "circuit closed"));
  }

  @Test
  void aDelegateThatSaysThePeerIsDownIsBelieved() {
    peers.reachable(N2, false);

    assertThat(transport.state(N2)).isEqualTo(new PeerTransport.PeerState(false, "down"));
  }

  @Test
  void aScanOfAPeerWhoseBreakerIsOpenFailsAtOnce() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);
    int callsBefore = peers.calls().size();

    try (ScanCursor cursor = transport.scan(N2, KeyRange.from(KEY))) {
      CompletableFuture<?> batch = cursor.next(10, 1 << 20);
      assertThat(batch).isCompletedExceptionally();
      assertThat(failure(batch)).isInstanceOf(PeerUnavailableException.class);
    }
    assertThat(peers.calls()).hasSize(callsBefore);
  }

  // ---- bulkhead -------------------------------------------------------------------------------

  @Test
  void aCallBeyondTheCallsInFlightToOnePeerIsRefusedAtOnce() {
    peers.answer(N2, Outcome.HANG);
    CompletableFuture<Optional<Record>> first = transport.read(N2, KEY);
    CompletableFuture<Void> second = transport.write(N2, KEY, RECORD);

    CompletableFuture<Optional<Record>> third = transport.read(N2, KEY);

    assertThat(third).isCompletedExceptionally();
    assertThat(failure(third))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("too many calls in flight");
    assertThat(peers.calls()).hasSize(2);
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(await(transport.read(N3, KEY))).as("another peer has its own limit").isEmpty();

    peers.releaseAll();
    await(first);
    await(second);
    peers.answer(N2, Outcome.SUCCEED);
    assertThat(await(transport.read(N2, KEY))).as("room again once calls finished").isEmpty();
  }

  @Test
  void callsRefusedByTheBreakerDoNotTakeRoomInTheBulkhead() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);
    for (int i = 0; i < 10; i++) {
      transport.read(N2, KEY);
    }
    peers.answer(N2, Outcome.SUCCEED);

    transport.peerAnnounced(N2);

    assertThat(await(transport.read(N2, KEY))).isEmpty();
  }

  // ---- metrics --------------------------------------------------------------------------------

  @Test
  void callsAreTimedByPeerOperationAndOutcome() {
    await(transport.read(N2, KEY));
    await(transport.write(N2, KEY, RECORD));
    peers.answer(N3, Outcome.FAIL);
    failure(transport.read(N3, KEY));
    peers.answer(N2, Outcome.HANG);
    transport.hello(N2);
    transport.hello(N2);
    failure(transport.hello(N2));

    assertThat(calls("n2", "read", "ok")).isEqualTo(1);
    assertThat(calls("n2", "write", "ok")).isEqualTo(1);
    assertThat(calls("n3", "read", "error")).isEqualTo(1);
    assertThat(calls("n2", "hello", "rejected")).isEqualTo(1);
    assertThat(registry.find("kvorum.replica.calls").timers())
        .allSatisfy(t -> assertThat(t.getId().getTags()).hasSize(3));
  }

  @Test
  void breakerStatesArePublished() {
    peers.answer(N2, Outcome.FAIL);
    openBreaker(N2);

    assertThat(
            registry
                .get("resilience4j.circuitbreaker.state")
                .tag("name", "n2")
                .tag("state", "open")
                .gauge()
                .value())
        .isEqualTo(1);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private long calls(String peer, String operation, String outcome) {
    Timer timer =
        registry
            .find("kvorum.replica.calls")
            .tag("peer", peer)
            .tag("operation", operation)
            .tag("outcome", outcome)
            .timer();
    assertThat(timer).as("timer %s/%s/%s", peer, operation, outcome).isNotNull();
    return timer.count();
  }

  /** Five failed calls: the minimum the breaker judges, all failing. */
  private void openBreaker(NodeId peer) {
    for (int i = 0; i < 5; i++) {
      assertThat(failure(transport.read(peer, KEY))).isInstanceOf(PeerUnavailableException.class);
    }
    assertThat(transport.state(peer).detail()).isEqualTo("circuit open");
  }

  private static <T> T await(CompletableFuture<T> future) {
    return Futures.await(future, WAIT);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    return Futures.failure(future, WAIT);
  }
}
