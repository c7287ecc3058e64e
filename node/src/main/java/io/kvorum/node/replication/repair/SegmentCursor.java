package io.kvorum.node.replication.repair;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The records of a scan that a predicate keeps (those of some segments shared with one peer), each
 * batch released at the repair rate: what a peer pulls in an exchange. Batches the predicate
 * empties are skipped in a loop, not by nesting, so a long stretch without a match costs no stack.
 */
final class SegmentCursor implements ScanCursor {
  private final ScanCursor source;
  private final Predicate<Entry> keep;
  private final RepairRate rate;
  private final RepairMetrics metrics;

  SegmentCursor(ScanCursor source, Predicate<Entry> keep, RepairRate rate, RepairMetrics metrics) {
    this.source = source;
    this.keep = keep;
    this.rate = rate;
    this.metrics = metrics;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    CompletableFuture<List<Entry>> result = new CompletableFuture<>();
    fetch(Math.max(1, maxEntries), Math.min(maxBytes, rate.batchBytes()), result);
    return result.thenCompose(
        batch -> {
          long bytes = Batches.bytes(batch);
          metrics.sent(batch.size(), bytes);
          return rate.acquire(bytes).thenApply(x -> batch);
        });
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
