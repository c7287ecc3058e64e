package io.kvorum.node.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The entries of a cursor that a predicate keeps. Batches the predicate empties are skipped in a
 * loop, not by nesting, so a long stretch without a match costs no stack.
 */
final class FilteredCursor implements ScanCursor {
  private final ScanCursor source;
  private final Predicate<Entry> keep;

  FilteredCursor(ScanCursor source, Predicate<Entry> keep) {
    this.source = source;
    this.keep = keep;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    CompletableFuture<List<Entry>> result = new CompletableFuture<>();
    fetch(Math.max(1, maxEntries), maxBytes, result);
    return result;
  }

  private void fetch(int maxEntries, long maxBytes, CompletableFuture<List<Entry>> result) {
    while (true) {
      CompletableFuture<List<Entry>> next;
      try {
        next = source.next(maxEntries, maxBytes);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
        return;
      }
      if (!next.isDone() || next.isCompletedExceptionally()) {
        next.whenComplete(
            (batch, error) -> {
              if (error != null) {
                result.completeExceptionally(error);
              } else if (!deliver(batch, result)) {
                fetch(maxEntries, maxBytes, result);
              }
            });
        return;
      }
      if (deliver(next.join(), result)) {
        return;
      }
    }
  }

  /** Completes {@code result} with what {@code batch} keeps; false if that is nothing yet. */
  private boolean deliver(List<Entry> batch, CompletableFuture<List<Entry>> result) {
    if (batch.isEmpty()) {
      result.complete(List.of());
      return true;
    }
    List<Entry> kept = new ArrayList<>();
    try {
      for (Entry entry : batch) {
        if (keep.test(entry)) {
          kept.add(entry);
        }
      }
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return true;
    }
    if (kept.isEmpty()) {
      return false;
    }
    result.complete(kept);
    return true;
  }

  @Override
  public void close() {
    source.close();
  }
}
