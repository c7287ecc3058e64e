package io.kvorum.node.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The first {@code limit} entries of a cursor. Once they are delivered it reads as exhausted and
 * closes its source, so the scans behind it stop at once rather than when the reader goes away.
 */
final class LimitedCursor implements ScanCursor {
  private final ScanCursor source;
  private long remaining;

  LimitedCursor(ScanCursor source, long limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, got " + limit);
    }
    this.source = source;
    this.remaining = limit;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    if (remaining == 0) {
      return CompletableFuture.completedFuture(List.of());
    }
    int asked = (int) Math.min(Math.max(1, maxEntries), remaining);
    return source
        .next(asked, maxBytes)
        .thenApply(
            batch -> {
              List<Entry> kept =
                  batch.size() > remaining ? batch.subList(0, (int) remaining) : batch;
              remaining -= kept.size();
              if (remaining == 0) {
                source.close();
              }
              return kept;
            });
  }

  @Override
  public void close() {
    source.close();
  }
}
