package io.kvorum.node.coordinator;

import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.kvorum.node.core.NotEnoughReplicasException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;

/**
 * The request timeout: a quorum not reached within it fails with {@link NotEnoughReplicasException}
 * saying how many replicas answered in time, which failed and which did not answer.
 */
final class Deadline {
  private final TimeLimiter limiter;
  private final ScheduledExecutorService scheduler;

  Deadline(Duration timeout, ScheduledExecutorService scheduler) {
    this.limiter =
        TimeLimiter.of(
            "request",
            TimeLimiterConfig.custom().timeoutDuration(timeout).cancelRunningFuture(false).build());
    this.scheduler = scheduler;
  }

  <T> CompletableFuture<List<QuorumCall.Answer<T>>> await(QuorumCall<T> call) {
    return limiter
        .executeCompletionStage(scheduler, call::result)
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
