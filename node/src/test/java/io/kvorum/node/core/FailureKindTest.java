package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The failure table: each row's answers, and a row for every failure. */
class FailureKindTest {
  /** One failure of every kind. */
  private static final Map<Throwable, FailureKind> RAISED = raised();

  private static Map<Throwable, FailureKind> raised() {
    Map<Throwable, FailureKind> raised = new LinkedHashMap<>();
    raised.put(
        new StorageException(StorageException.Kind.NO_SPACE, "put", null, null),
        FailureKind.NO_SPACE);
    raised.put(new OverloadedException("storage"), FailureKind.OVERLOADED);
    raised.put(new UnavailableException("shutting down"), FailureKind.UNAVAILABLE);
    raised.put(new ClockOffsetException("ahead", 3_600_000, 500), FailureKind.CLOCK_OFFSET);
    raised.put(new InvalidRequestException("id", "missing"), FailureKind.INVALID_REQUEST);
    for (ClusterChangeException.Reason reason : ClusterChangeException.Reason.values()) {
      raised.put(
          new ClusterChangeException(reason, "refused", Map.of()),
          FailureKind.valueOf(reason.name()));
    }
    for (SnapshotException.Reason reason : SnapshotException.Reason.values()) {
      raised.put(new SnapshotException(reason, "nightly"), FailureKind.valueOf(reason.name()));
    }
    raised.put(
        new ConditionFailedException(Optional.of(Version.of(1, 0))), FailureKind.CONDITION_FAILED);
    raised.put(new PeerUnavailableException(NodeId.of("n2"), "down", null), FailureKind.NO_ANSWER);
    raised.put(
        new FeedException(FeedException.Reason.CURSOR_EXPIRED, "too old"),
        FailureKind.CURSOR_EXPIRED);
    raised.put(
        new FeedException(FeedException.Reason.TOO_SLOW, "cut off"), FailureKind.FEED_TOO_SLOW);
    raised.put(
        new FeedException(FeedException.Reason.NOT_CAPTURED, "capture off"),
        FailureKind.CHANGES_NOT_CAPTURED);
    raised.put(new NotEnoughReplicasException(2, 1), FailureKind.NOT_ENOUGH_REPLICAS);
    raised.put(
        new StorageException(StorageException.Kind.FAILURE, "get", null, null),
        FailureKind.STORAGE_FAILURE);
    raised.put(new IllegalStateException("a bug"), FailureKind.UNEXPECTED);
    raised.put(new UncheckedIOException(new IOException("eof")), FailureKind.UNEXPECTED);
    return raised;
  }

  /** A row as the table in the Javadoc and docs/architecture.md states it. */
  private record Row(
      FailureKind kind,
      boolean countsAgainstPeer,
      boolean hinted,
      boolean retryable,
      boolean shared,
      int httpStatus,
      boolean retryAfter) {
    static Row of(FailureKind kind) {
      return new Row(
          kind,
          kind.countsAgainstPeer(),
          kind.hinted(),
          kind.retryable(),
          kind.shared(),
          kind.httpStatus(),
          kind.retryAfter());
    }
  }

  @Test
  void eachRowAnswersAsTheTableSays() {
    List<Row> table =
        List.of(
            new Row(FailureKind.NO_SPACE, false, true, false, true, 507, false),
            new Row(FailureKind.OVERLOADED, false, true, true, true, 503, true),
            new Row(FailureKind.UNAVAILABLE, true, true, true, true, 503, true),
            new Row(FailureKind.CLOCK_OFFSET, false, false, true, true, 503, false),
            new Row(FailureKind.INVALID_REQUEST, false, true, false, false, 400, false),
            new Row(FailureKind.CHANGE_IN_PROGRESS, false, false, true, false, 409, false),
            new Row(FailureKind.UNKNOWN_NODE, false, false, false, false, 404, false),
            new Row(FailureKind.NODE_IS_UP, false, false, false, false, 409, false),
            new Row(FailureKind.LAST_MEMBER, false, false, false, false, 409, false),
            new Row(FailureKind.SNAPSHOT_EXISTS, false, false, false, false, 409, false),
            new Row(FailureKind.UNKNOWN_SNAPSHOT, false, false, false, false, 404, false),
            new Row(FailureKind.CONDITION_FAILED, false, false, false, false, 412, false),
            new Row(FailureKind.CURSOR_EXPIRED, false, false, false, false, 410, false),
            new Row(FailureKind.FEED_TOO_SLOW, false, false, true, false, 503, false),
            new Row(FailureKind.CHANGES_NOT_CAPTURED, false, false, false, false, 501, false),
            new Row(FailureKind.NO_ANSWER, true, true, true, false, 504, false),
            new Row(FailureKind.NOT_ENOUGH_REPLICAS, false, false, true, false, 504, false),
            new Row(FailureKind.STORAGE_FAILURE, false, true, false, true, 500, false),
            new Row(FailureKind.UNEXPECTED, true, true, false, false, 500, false));

    assertThat(Arrays.stream(FailureKind.values()).map(Row::of)).containsExactlyElementsOf(table);
  }

  @Test
  void everyFailureHasItsRowBehindTheWrappersOfAsynchronousCode() {
    RAISED.forEach(
        (failure, kind) -> {
          assertThat(FailureKind.of(failure)).as("%s", failure).isEqualTo(kind);
          assertThat(FailureKind.of(new CompletionException(new ExecutionException(failure))))
              .isEqualTo(kind);
        });
    assertThat(RAISED.values()).containsAll(List.of(FailureKind.values()));
  }

  @Test
  void everyErrorKvorumRaisesOnPurposeHasATypedRow() {
    List<Class<?>> raised = RAISED.keySet().stream().<Class<?>>map(Throwable::getClass).toList();
    assertThat(raised).containsAll(List.of(KvorumException.class.getPermittedSubclasses()));
    RAISED.keySet().stream()
        .filter(KvorumException.class::isInstance)
        .forEach(known -> assertThat(FailureKind.of(known)).isNotEqualTo(FailureKind.UNEXPECTED));
  }

  @Test
  void replicasShareAnAnswerOnlyWhenEachIsSharedAndTheClientWouldGetTheSameAnswer() {
    assertThat(FailureKind.OVERLOADED.sharesAnswerWith(FailureKind.UNAVAILABLE)).isTrue();
    assertThat(FailureKind.NO_SPACE.sharesAnswerWith(FailureKind.NO_SPACE)).isTrue();
    assertThat(FailureKind.CLOCK_OFFSET.sharesAnswerWith(FailureKind.CLOCK_OFFSET)).isTrue();
    assertThat(FailureKind.CLOCK_OFFSET.sharesAnswerWith(FailureKind.OVERLOADED)).isFalse();
    assertThat(FailureKind.NO_SPACE.sharesAnswerWith(FailureKind.STORAGE_FAILURE)).isFalse();
    assertThat(FailureKind.STORAGE_FAILURE.sharesAnswerWith(FailureKind.UNEXPECTED)).isFalse();
    assertThat(FailureKind.NO_ANSWER.sharesAnswerWith(FailureKind.NO_ANSWER)).isFalse();
    assertThat(FailureKind.UNEXPECTED.sharesAnswerWith(FailureKind.UNEXPECTED)).isFalse();
  }

  @Test
  void onlyFailuresWorthRetryingSayWhenToRetry() {
    for (FailureKind kind : FailureKind.values()) {
      if (kind.retryAfter()) {
        assertThat(kind.retryable()).as("%s", kind).isTrue();
      }
    }
  }
}
