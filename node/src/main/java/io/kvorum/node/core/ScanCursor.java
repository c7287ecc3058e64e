package io.kvorum.node.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A pull-based cursor over a range of records in key order, so that a consumer reads only as fast
 * as it can pass entries on (back-pressure) and memory stays bounded by one batch.
 *
 * <p>Calls to {@link #next} must not overlap: call it again only after the previous future
 * completed. {@link #close()} may be called at any time, from any thread, and more than once.
 */
public interface ScanCursor extends AutoCloseable {
  /**
   * The next entries: at least one unless the range is exhausted (then empty), at most {@code
   * maxEntries}, and stopping after the entry that brings the batch to {@code maxBytes} of keys and
   * values.
   */
  CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes);

  @Override
  void close();

  /** A cursor whose batches pass through {@code transform}; closing it closes this one. */
  default ScanCursor mapBatches(UnaryOperator<CompletableFuture<List<Entry>>> transform) {
    ScanCursor source = this;
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return transform.apply(source.next(maxEntries, maxBytes));
      }

      @Override
      public void close() {
        source.close();
      }
    };
  }

  /**
   * A cursor over the entries of this one that {@code keep} keeps; closing it closes this one. Each
   * batch has at least one entry unless this cursor is exhausted, however many it passes over.
   */
  default ScanCursor filter(Predicate<Entry> keep) {
    return new FilteredCursor(this, keep);
  }

  /**
   * A cursor over the first {@code limit} entries of this one (at least 1), which closes this one
   * once it has delivered them.
   */
  default ScanCursor limit(long limit) {
    return new LimitedCursor(this, limit);
  }

  /**
   * A cursor whose first batch holds at most {@code firstBatch} entries and each next one at most
   * twice the last, however many its reader asks for: a reader that needs only a few entries (a
   * range with a limit) makes the sources behind it read and send no more ahead, and one that needs
   * more soon gets full batches again. Closing it closes this one.
   */
  default ScanCursor growingFrom(int firstBatch) {
    return new GrowingCursor(this, firstBatch);
  }

  /** A cursor that fails every call to {@link #next} with {@code error}. */
  static ScanCursor failed(RuntimeException error) {
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return CompletableFuture.failedFuture(error);
      }

      @Override
      public void close() {}
    };
  }
}
