package io.kvorum.api;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;

/**
 * At most N requests in flight, the rest queued in order without a thread each. It bounds the
 * connections the JDK's client opens (HTTP/1.1: one per request in flight), however many calls an
 * application starts at once.
 */
final class ConcurrencyLimit {
  private final Semaphore permits;
  private final Queue<CompletableFuture<Void>> waiting = new ConcurrentLinkedQueue<>();

  ConcurrencyLimit(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("at least one request in flight, not " + max);
    }
    this.permits = new Semaphore(max);
  }

  /**
   * Completes once a permit is held; {@link #release()} it exactly once after. Cancelling the
   * future before it completes withdraws from the queue: no permit is taken for it.
   */
  CompletableFuture<Void> acquire() {
    if (waiting.isEmpty() && permits.tryAcquire()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> turn = new CompletableFuture<>();
    waiting.add(turn);
    handOut();
    return turn;
  }

  void release() {
    permits.release();
    handOut();
  }

  /** Re-checked after every add and release, so no waiter is stranded by a race between them. */
  private void handOut() {
    while (!waiting.isEmpty() && permits.tryAcquire()) {
      CompletableFuture<Void> next = waiting.poll();
      if (next == null) {
        permits.release();
        return;
      }
      if (!next.complete(null)) {
        permits.release(); // it was cancelled (its call's deadline passed): the next one's turn
      }
    }
  }
}
