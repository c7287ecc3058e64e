package io.kvorum.node.antientropy;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The records of a scan that a predicate keeps (those of some segments shared with one peer), each
 * batch released at the repair rate: what a peer pulls in an exchange.
 */
final class SegmentCursor implements ScanCursor {
  private final ScanCursor source;
  private final RepairRate rate;
  private final RepairMetrics metrics;

  SegmentCursor(ScanCursor source, Predicate<Entry> keep, RepairRate rate, RepairMetrics metrics) {
    this.source = source.filter(keep);
    this.rate = rate;
    this.metrics = metrics;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    return source
        .next(maxEntries, Math.min(maxBytes, rate.batchBytes()))
        .thenCompose(
            batch -> {
              long bytes = Batches.bytes(batch);
              metrics.sent(batch.size(), bytes);
              return rate.acquire(bytes).thenApply(x -> batch);
            });
  }

  @Override
  public void close() {
    source.close();
  }
}
