package io.kvorum.node.quorum;

import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.kvorum.node.core.NotEnoughReplicasException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The request timeout: a quorum not reached within it fails with {@link NotEnoughReplicasException}
 * saying how many replicas answered in time, which failed and which did not answer.
 *
 * <p>Each request's timer is kept by the scheduler {@code schedulers} gives on the thread that
 * starts the request: the event loop serving it, whose own timer queue takes and cancels a timer
 * without a lock or a wake-up of another thread, or a shared timer thread.
 */
public final class RequestDeadline {
  private final Duration timeout;
  private final TimeLimiter limiter;
  private final Supplier<ScheduledExecutorService> schedulers;
  private final LongSupplier nanoTime;

  public RequestDeadline(Duration timeout, Supplier<ScheduledExecutorService> schedulers) {
    this(timeout, schedulers, System::nanoTime);
  }

  /**
   * @param schedulers called on the thread that starts a request: the scheduler of its timers
   * @param nanoTime monotonic time, as the schedulers keep it (a simulation's virtual time)
   */
  public RequestDeadline(
      Duration timeout, Supplier<ScheduledExecutorService> schedulers, LongSupplier nanoTime) {
    this.timeout = timeout;
    this.limiter =
        TimeLimiter.of(
            "request",
            TimeLimiterConfig.custom().timeoutDuration(timeout).cancelRunningFuture(false).build());
    this.schedulers = schedulers;
    this.nanoTime = nanoTime;
  }

  /** How long a request waits for its replicas. */
  public Duration timeout() {
    return timeout;
  }

  /** Monotonic time now, as the schedulers keep it. */
  public long nanoTime() {
    return nanoTime.getAsLong();
  }

  /** The scheduler for the timers of a request started on this thread. */
  public ScheduledExecutorService scheduler() {
    return schedulers.get();
  }

  /**
   * Bounds every one of {@code calls} (the items of one batch) by the request timeout with one
   * timer: each still undecided when it fires fails with {@link NotEnoughReplicasException} as
   * {@link #await} fails it. The timer is cancelled once every call is decided.
   */
  public void bound(List<? extends QuorumCall<?>> calls) {
    CompletableFuture<?>[] results =
        calls.stream().map(QuorumCall::result).toArray(CompletableFuture[]::new);
    CompletableFuture<Void> decided = CompletableFuture.allOf(results);
    if (decided.isDone()) {
      return;
    }
    ScheduledFuture<?> timer =
        schedulers
            .get()
            .schedule(
                () -> calls.forEach(call -> call.giveUp()),
                timeout.toNanos(),
                TimeUnit.NANOSECONDS);
    decided.whenComplete((ok, error) -> timer.cancel(false));
  }

  public <T> CompletableFuture<List<QuorumCall.Answer<T>>> await(QuorumCall<T> call) {
    // Decided already (every replica asked answered from memory, on this thread): no timer.
    CompletionStage<List<QuorumCall.Answer<T>>> timed =
        call.result().isDone()
            ? call.result()
            : limiter.executeCompletionStage(schedulers.get(), call::result);
    return timed
        .toCompletableFuture()
        .exceptionallyCompose(
            error -> {
              Throwable cause = error instanceof CompletionException ? error.getCause() : error;
              if (cause instanceof TimeoutException) {
                return CompletableFuture.failedFuture(call.notEnoughReplicas());
              }
              return CompletableFuture.failedFuture(cause);
            });
  }
}
