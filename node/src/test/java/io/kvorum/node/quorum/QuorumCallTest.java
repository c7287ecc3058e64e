package io.kvorum.node.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.quorum.QuorumCall.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QuorumCallTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final NodeId SELF = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final NodeId N4 = NodeId.of("n4");
  private static final NodeId N5 = NodeId.of("n5");

  private static final List<NodeId> FIVE = List.of(SELF, N2, N3, N4, N5);

  private static QuorumCall<String> call(int ack, int from) {
    return new QuorumCall<>(new Quorum(ack, from), FIVE.subList(0, from));
  }

  private static StorageException diskFull() {
    return new StorageException(StorageException.Kind.NO_SPACE, "put", null, null);
  }

  private static PeerUnavailableException down(NodeId peer) {
    return new PeerUnavailableException(peer, "connection refused", null);
  }

  @Test
  void completesAtTheAckthSuccessWithExactlyThoseAnswers() {
    QuorumCall<String> call = call(2, 3);

    call.succeeded(N3, "from n3");
    assertThat(call.result()).isNotDone();
    call.succeeded(SELF, "from n1");

    assertThat(call.result()).isCompleted();
    assertThat(call.result().join())
        .containsExactly(new Answer<>(N3, "from n3"), new Answer<>(SELF, "from n1"));
    assertThat(call.notEnoughReplicas().answered()).isEqualTo(2);
  }

  @Test
  void answersAfterTheQuorumDoNotChangeTheResult() {
    QuorumCall<String> call = call(1, 3);

    call.succeeded(N2, "first");
    call.succeeded(N3, "second");
    call.failed(SELF, new OverloadedException("storage"));

    assertThat(call.result().join()).containsExactly(new Answer<>(N2, "first"));
  }

  @Test
  void failsAsSoonAsAckCanNoLongerBeReached() {
    QuorumCall<String> call = call(2, 3);

    call.succeeded(N2, "ok");
    call.failed(N3, down(N3));
    assertThat(call.result()).as("one more success still makes the quorum").isNotDone();
    call.failed(SELF, down(SELF));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.required()).isEqualTo(2);
    assertThat(failure.answered()).isEqualTo(1);
  }

  @Test
  void failsWithoutWaitingForTheReplicasStillOut() {
    QuorumCall<String> call = call(3, 3);

    call.failed(N2, down(N2));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.required()).isEqualTo(3);
    assertThat(failure.answered()).isZero();
    assertThat(call.settled()).as("two replicas have not answered yet").isNotDone();
  }

  @Test
  void answeredCountsTheSuccessesBeforeTheQuorumBecameUnreachable() {
    QuorumCall<String> call = call(4, 5);

    call.succeeded(SELF, "a");
    call.succeeded(N2, "b");
    call.failed(N3, down(N3));
    call.failed(N4, down(N4));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.required()).isEqualTo(4);
    assertThat(failure.answered()).isEqualTo(2);

    call.succeeded(N5, "late");
    assertThat(failure(call, NotEnoughReplicasException.class).answered())
        .as("the failure stays what it was")
        .isEqualTo(2);
  }

  @Test
  void whenOnlyThisNodesReplicaFailedItsOwnErrorIsSurfaced() {
    QuorumCall<String> call = call(2, 2);
    OverloadedException overloaded = new OverloadedException("storage");

    call.succeeded(N2, "ok");
    call.failed(SELF, new CompletionException(overloaded));

    assertThat(failure(call, OverloadedException.class)).isSameAs(overloaded);
  }

  @Test
  void aFullLocalDiskIsSurfacedForASingleReplicaRequest() {
    QuorumCall<String> call = call(1, 1);
    StorageException full = diskFull();

    call.failed(SELF, full);

    assertThat(failure(call, StorageException.class)).isSameAs(full);
  }

  @Test
  void whenEveryFailedReplicaRanOutOfDiskThatIsWhatTheClientHears() {
    QuorumCall<String> call = call(2, 3);

    call.failed(N2, diskFull());
    assertThat(call.result()).isNotDone();
    call.failed(N3, new CompletionException(diskFull()));

    assertThat(failure(call, StorageException.class).kind())
        .isEqualTo(StorageException.Kind.NO_SPACE);
  }

  @Test
  void overloadedAndShuttingDownReplicasBothMeanRetryLater() {
    QuorumCall<String> call = call(3, 3);

    call.succeeded(SELF, "ok");
    call.failed(N2, new OverloadedException("storage"));
    call.failed(N3, new UnavailableException("the node is shutting down"));

    assertThat(failure(call, OverloadedException.class)).hasMessageContaining("overloaded");
  }

  @Test
  void replicasFailingInDifferentWaysAreNotEnoughReplicasWithEachReason() {
    QuorumCall<String> call = call(2, 3);

    call.failed(N3, diskFull());
    call.failed(N2, new PeerUnavailableException(N2, "its circuit breaker is open", null));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.required()).isEqualTo(2);
    assertThat(failure.answered()).isZero();
    assertThat(failure.failed())
        .containsExactly(
            entry(N3, "disk full: put failed: NO_SPACE"),
            entry(N2, "not available: its circuit breaker is open"));
    assertThat(failure.pending()).containsExactly(SELF);
    assertThat(failure)
        .hasMessage(
            "Not Enough Replicas: 2 required, 0 answered; failed: n3 (disk full: put failed:"
                + " NO_SPACE), n2 (not available: its circuit breaker is open);"
                + " no answer yet from n1");
  }

  @Test
  void aReplicaThatCannotAnswerFailsAnAllReplicaRequestAtOnceNamingTheOthersAsPending() {
    QuorumCall<String> call = call(3, 3);

    call.failed(N3, down(N3));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.failed()).containsOnlyKeys(N3);
    assertThat(failure.failed().get(N3)).isEqualTo("not available: connection refused");
    assertThat(failure.pending()).containsExactly(SELF, N2);
  }

  @Test
  void aLocalFailureThatIsNotAKvorumErrorIsNotEnoughReplicas() {
    QuorumCall<String> call = call(1, 1);

    call.failed(SELF, new IllegalStateException("a bug"));

    NotEnoughReplicasException failure = failure(call, NotEnoughReplicasException.class);
    assertThat(failure.required()).isEqualTo(1);
    assertThat(failure.failed()).containsExactly(entry(SELF, "a bug"));
  }

  @Test
  void atTheDeadlineTheReportNamesWhoAnsweredFailedAndKeptSilent() {
    QuorumCall<String> call = call(3, 5);

    call.succeeded(N4, "ok");
    call.failed(N2, diskFull());

    NotEnoughReplicasException timedOut = call.notEnoughReplicas();
    assertThat(timedOut.answered()).isEqualTo(1);
    assertThat(timedOut.failed()).containsOnlyKeys(N2);
    assertThat(timedOut.pending()).containsExactly(SELF, N3, N5);
  }

  @Test
  void replicasMustMatchFrom() {
    assertThatThrownBy(() -> new QuorumCall<String>(new Quorum(1, 2), List.of(SELF)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void settledCompletesOnceEveryReplicaAnsweredOrFailedIncludingLateAnswers() {
    QuorumCall<String> call = call(1, 3);

    call.succeeded(N2, "fast");
    assertThat(call.result()).isDone();
    assertThat(call.settled()).isNotDone();
    call.failed(N3, down(N3));
    assertThat(call.settled()).isNotDone();
    call.succeeded(SELF, "late");

    assertThat(call.settled().join())
        .containsExactly(new Answer<>(N2, "fast"), new Answer<>(SELF, "late"));
  }

  @Test
  void settledCompletesAfterAFailedResultToo() {
    QuorumCall<String> call = call(3, 3);

    call.failed(N2, down(N2));
    call.succeeded(SELF, "mine");
    assertThat(call.settled()).isNotDone();
    call.succeeded(N3, "theirs");

    assertThat(call.result()).isCompletedExceptionally();
    assertThat(call.settled().join())
        .containsExactly(new Answer<>(SELF, "mine"), new Answer<>(N3, "theirs"));
  }

  @Test
  void settledIsEmptyWhenEveryReplicaFailed() {
    QuorumCall<String> call = call(1, 2);

    call.failed(N2, down(N2));
    call.failed(SELF, down(SELF));

    assertThat(call.settled().join()).isEmpty();
  }

  @Test
  void answersArrivingConcurrentlyFromManyThreadsAreAllCounted() throws Exception {
    int from = 64;
    int ack = 33;
    List<NodeId> nodes = new ArrayList<>();
    for (int i = 0; i < from; i++) {
      nodes.add(i == 0 ? SELF : NodeId.of("p" + i));
    }
    QuorumCall<String> call = new QuorumCall<>(new Quorum(ack, from), nodes);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (NodeId node : nodes) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  call.succeeded(node, node.value());
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(call.result().join()).hasSize(ack);
    assertThat(call.settled().join()).hasSize(from);
    assertThat(call.settled().join())
        .extracting(Answer::node)
        .containsExactlyInAnyOrderElementsOf(nodes);
  }

  private static <E extends Throwable> E failure(QuorumCall<String> call, Class<E> type) {
    assertThat(call.result()).isCompletedExceptionally();
    try {
      call.result().get();
      throw new AssertionError("the result did not fail");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(type);
      return type.cast(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
