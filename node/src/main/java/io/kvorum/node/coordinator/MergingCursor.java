package io.kvorum.node.coordinator;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Merges several sorted cursors (one per node) into one: for each key, the newest record across the
 * sources wins, and only live values are passed on (tombstones and expired records are dropped).
 * Reads from the sources only as fast as the consumer asks, so memory stays bounded by one source
 * batch per node.
 *
 * <p>A source that fails is dropped (what it had already handed over still counts) and the merge
 * goes on from the others, after the last key it passed on, for as long as its {@link Coverage}
 * says the others still hold every key; once coverage is gone, the merge fails, and keeps failing.
 */
final class MergingCursor implements ScanCursor {
  private static final int SOURCE_ENTRIES = 256;
  private static final long SOURCE_BYTES = 1 << 20;

  /**
   * Whether the sources still read cover the range. Thread-safe: records are seen on the threads
   * the sources answer on.
   */
  interface Coverage {
    /** Source {@code source} (its index) failed with {@code error} and is no longer read. */
    void lost(int source, Throwable error);

    /** A source handed over {@code record}. */
    void seen(Record record);

    /** The failure that ends the merge, once the sources still read no longer cover the range. */
    Optional<RuntimeException> gone();
  }

  private final List<Source> sources;
  private final LongSupplier wallMillis;
  private final Coverage coverage;
  private RuntimeException failure;

  MergingCursor(List<ScanCursor> cursors, LongSupplier wallMillis, Coverage coverage) {
    List<Source> list = new ArrayList<>();
    for (int i = 0; i < cursors.size(); i++) {
      list.add(new Source(i, cursors.get(i)));
    }
    this.sources = List.copyOf(list);
    this.wallMillis = wallMillis;
    this.coverage = coverage;
  }

  private final class Source {
    final int index;
    final ScanCursor cursor;
    final ArrayDeque<Entry> buffer = new ArrayDeque<>();
    boolean exhausted;
    boolean lost;
    // The last request for a batch. A source is never asked again while it is pending (calls to a
    // cursor must not overlap), and its buffer is only touched once it completed.
    CompletableFuture<Void> refilling = CompletableFuture.completedFuture(null);

    Source(int index, ScanCursor cursor) {
      this.index = index;
      this.cursor = cursor;
    }

    boolean needsRefill() {
      return !lost && (!refilling.isDone() || (buffer.isEmpty() && !exhausted));
    }

    CompletableFuture<Void> refill() {
      // A failed source is never asked again; the next look at the sources drops it.
      if (refilling.isDone() && !refilling.isCompletedExceptionally()) {
        refilling =
            cursor
                .next(SOURCE_ENTRIES, SOURCE_BYTES)
                .thenAccept(
                    batch -> {
                      if (batch.isEmpty()) {
                        exhausted = true;
                      } else {
                        batch.forEach(entry -> coverage.seen(entry.record()));
                        buffer.addAll(batch);
                      }
                    });
      }
      return refilling;
    }

    /** Stops reading this source; what it buffered already still merges. */
    void lose() {
      lost = true;
      cursor.close();
      coverage.lost(index, refilling.exceptionNow());
    }
  }

  /** The batch being assembled by one {@link #next} call. */
  private static final class Batch {
    final List<Entry> entries = new ArrayList<>();
    final int maxEntries;
    final long maxBytes;
    long bytes;

    Batch(int maxEntries, long maxBytes) {
      this.maxEntries = maxEntries;
      this.maxBytes = maxBytes;
    }

    boolean full() {
      return entries.size() >= maxEntries || bytes >= maxBytes;
    }
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    return fill(new Batch(maxEntries, maxBytes));
  }

  private CompletableFuture<List<Entry>> fill(Batch batch) {
    // Refills completed since the last look: what they failed or revealed may end coverage.
    if (failed()) {
      return CompletableFuture.failedFuture(failure);
    }
    while (true) {
      List<CompletableFuture<Void>> refills = new ArrayList<>();
      for (Source source : sources) {
        if (source.needsRefill()) {
          refills.add(source.refill());
        }
      }
      if (!refills.isEmpty()) {
        // Hand over what is ready rather than make the consumer wait for the slowest source.
        if (!batch.entries.isEmpty()) {
          return CompletableFuture.completedFuture(batch.entries);
        }
        return CompletableFuture.allOf(
                refills.stream()
                    .map(refill -> refill.exceptionally(error -> null))
                    .toArray(CompletableFuture[]::new))
            .thenCompose(ignored -> fill(batch));
      }
      Key smallest = null;
      for (Source source : sources) {
        if (!source.buffer.isEmpty()
            && (smallest == null || source.buffer.peekFirst().key().compareTo(smallest) < 0)) {
          smallest = source.buffer.peekFirst().key();
        }
      }
      if (smallest == null) {
        return CompletableFuture.completedFuture(batch.entries);
      }
      Record newest = null;
      for (Source source : sources) {
        if (!source.buffer.isEmpty() && source.buffer.peekFirst().key().equals(smallest)) {
          newest = Record.newest(newest, source.buffer.pollFirst().record());
        }
      }
      if (newest.isLive(wallMillis.getAsLong())) {
        batch.entries.add(new Entry(smallest, newest));
        batch.bytes += smallest.size() + newest.value().length;
        if (batch.full()) {
          return CompletableFuture.completedFuture(batch.entries);
        }
      }
    }
  }

  /** Drops the sources whose last refill failed; whether coverage is gone (then it stays gone). */
  private boolean failed() {
    if (failure == null) {
      for (Source source : sources) {
        if (!source.lost && source.refilling.isCompletedExceptionally()) {
          source.lose();
        }
      }
      failure = coverage.gone().orElse(null);
    }
    return failure != null;
  }

  @Override
  public void close() {
    sources.forEach(source -> source.cursor.close());
  }
}
