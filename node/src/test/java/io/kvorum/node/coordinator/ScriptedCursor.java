package io.kvorum.node.coordinator;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A source that hands out the given batches, then empty ones, each completed on {@code
 * completions}. Like the gRPC cursor, it refuses a call made while the previous one is pending.
 */
final class ScriptedCursor implements ScanCursor {
  private final Executor completions;
  private final Deque<List<Entry>> batches;
  final AtomicBoolean closed = new AtomicBoolean();
  final AtomicInteger overlapping = new AtomicInteger();
  private final AtomicBoolean pending = new AtomicBoolean();
  private int failAfter = -1;
  private int served;

  ScriptedCursor(Executor completions, List<List<Entry>> batches) {
    this.completions = completions;
    this.batches = new ArrayDeque<>(batches);
  }

  void failAfterBatches(int batches) {
    this.failAfter = batches;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    if (!pending.compareAndSet(false, true)) {
      overlapping.incrementAndGet();
      return CompletableFuture.failedFuture(
          new IllegalStateException("next() called before the previous batch arrived"));
    }
    CompletableFuture<List<Entry>> result = new CompletableFuture<>();
    completions.execute(
        () -> {
          pending.set(false);
          if (failAfter >= 0 && served >= failAfter) {
            result.completeExceptionally(
                new StorageException(StorageException.Kind.FAILURE, "scan", null, null));
            return;
          }
          served++;
          List<Entry> batch = batches.poll();
          result.complete(batch == null ? List.of() : batch);
        });
    return result;
  }

  @Override
  public void close() {
    closed.set(true);
  }
}
