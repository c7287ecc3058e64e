package io.kvorum.node.coordinator;

import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.quorum.RequestDeadline;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds back this node's own copy of a write it coordinates while some peer's clock is unmeasured
 * (docs/decisions/writes-refused-beyond-the-max-clock-offset.md): until a peer replica has accepted
 * the version, this node cannot know that its clock is not the one far ahead, and a version from
 * the future kept only here would beat every later write of the key. Opens at the first peer that
 * accepts, or once every peer has answered without refusing the version, or after {@code limit} (a
 * peer that answers nothing must not turn a write this node could take into a timeout); fails, and
 * the copy is not written, at the first peer that refuses the version as too far ahead of its
 * clock.
 */
final class LocalCopyGate {
  private final CompletableFuture<Void> open = new CompletableFuture<>();
  private final AtomicInteger unanswered;

  /**
   * @param peers how many peer replicas the write goes to
   * @param limit the longest the copy waits for a peer's answer
   * @param timer keeps the limit's timer (the request's own scheduler, as {@link
   *     RequestDeadline}'s)
   */
  LocalCopyGate(int peers, Duration limit, ScheduledExecutorService timer) {
    this.unanswered = new AtomicInteger(peers);
    if (peers == 0) {
      open.complete(null);
    } else {
      ScheduledFuture<?> expiry =
          timer.schedule(() -> open.complete(null), limit.toNanos(), TimeUnit.NANOSECONDS);
      open.whenComplete((ok, error) -> expiry.cancel(false));
    }
  }

  /** A peer replica's answer: {@code error} null when it took the write. */
  void answered(Throwable error) {
    if (error == null) {
      open.complete(null);
      return;
    }
    if (FailureKind.of(error) == FailureKind.CLOCK_OFFSET) {
      open.completeExceptionally(Failures.unwrap(error));
    }
    if (unanswered.decrementAndGet() == 0) {
      open.complete(null);
    }
  }

  /** Completes when the copy may be written; fails with the peer's refusal when it must not be. */
  CompletableFuture<Void> opened() {
    return open;
  }
}
