package io.kvorum.node.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@link ScanCursor#growingFrom}: batches from a first size on, each at most twice the last. */
final class GrowingCursor implements ScanCursor {
  private final ScanCursor source;
  private int batch;

  GrowingCursor(ScanCursor source, int firstBatch) {
    if (firstBatch < 1) {
      throw new IllegalArgumentException("the first batch must be positive, got " + firstBatch);
    }
    this.source = source;
    this.batch = firstBatch;
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    int asked = Math.min(maxEntries, batch);
    batch = (int) Math.min(Integer.MAX_VALUE, 2L * batch);
    return source.next(asked, maxBytes);
  }

  @Override
  public void close() {
    source.close();
  }
}
