package io.kvorum.node.antientropy;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Walking a cursor to its end without a stack frame per batch. */
final class Batches {
  private Batches() {}

  /**
   * Hands every batch of {@code cursor} to {@code handler}, one at a time, and closes the cursor at
   * the end or at the first failure. Batches and handlings that complete at once are looped over,
   * not nested, so a long run of them costs no stack.
   */
  static CompletableFuture<Void> forEach(
      ScanCursor cursor,
      int maxEntries,
      long maxBytes,
      Function<List<Entry>, CompletableFuture<Void>> handler) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    new Walk(cursor, maxEntries, maxBytes, handler, done).step();
    return done.whenComplete((ignored, error) -> cursor.close());
  }

  private record Walk(
      ScanCursor cursor,
      int maxEntries,
      long maxBytes,
      Function<List<Entry>, CompletableFuture<Void>> handler,
      CompletableFuture<Void> done) {
    void step() {
      while (!done.isDone()) {
        CompletableFuture<Void> handled;
        try {
          handled =
              cursor
                  .next(maxEntries, maxBytes)
                  .thenCompose(
                      batch -> {
                        if (batch.isEmpty()) {
                          done.complete(null);
                          return CompletableFuture.completedFuture(null);
                        }
                        return handler.apply(batch);
                      });
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
          return;
        }
        if (!handled.isDone()) {
          handled.whenComplete(
              (ignored, error) -> {
                if (error != null) {
                  done.completeExceptionally(error);
                } else {
                  step();
                }
              });
          return;
        }
        if (handled.isCompletedExceptionally()) {
          handled.whenComplete((ignored, error) -> done.completeExceptionally(error));
          return;
        }
      }
    }
  }

  /** About the bytes an entry takes on the wire: its key, its value and some framing. */
  static long bytes(Entry entry) {
    return entry.key().size() + entry.record().value().length + 32L;
  }

  static long bytes(List<Entry> entries) {
    long total = 0;
    for (Entry entry : entries) {
      total += bytes(entry);
    }
    return total;
  }
}
