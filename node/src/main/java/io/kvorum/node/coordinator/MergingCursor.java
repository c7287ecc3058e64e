package io.kvorum.node.coordinator;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Merges several sorted cursors (one per node) into one: for each key, the newest record across the
 * sources wins, and only live values are passed on (tombstones and expired records are dropped).
 * Reads from the sources only as fast as the consumer asks, so memory stays bounded by one source
 * batch per node. A failing source fails the merged cursor.
 */
final class MergingCursor implements ScanCursor {
  private static final int SOURCE_ENTRIES = 256;
  private static final long SOURCE_BYTES = 1 << 20;

  private final List<Source> sources;
  private final LongSupplier wallMillis;

  MergingCursor(List<ScanCursor> cursors, LongSupplier wallMillis) {
    this.sources = cursors.stream().map(Source::new).toList();
    this.wallMillis = wallMillis;
  }

  private static final class Source {
    final ScanCursor cursor;
    final ArrayDeque<Entry> buffer = new ArrayDeque<>();
    boolean exhausted;
    // The last request for a batch. A source is never asked again while it is pending (calls to a
    // cursor must not overlap), and its buffer is only touched once it completed; a failure sticks.
    CompletableFuture<Void> refilling = CompletableFuture.completedFuture(null);

    Source(ScanCursor cursor) {
      this.cursor = cursor;
    }

    boolean needsRefill() {
      return !refilling.isDone()
          || refilling.isCompletedExceptionally()
          || (buffer.isEmpty() && !exhausted);
    }

    CompletableFuture<Void> refill() {
      if (refilling.isDone() && !refilling.isCompletedExceptionally()) {
        refilling =
            cursor
                .next(SOURCE_ENTRIES, SOURCE_BYTES)
                .thenAccept(
                    batch -> {
                      if (batch.isEmpty()) {
                        exhausted = true;
                      } else {
                        buffer.addAll(batch);
                      }
                    });
      }
      return refilling;
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
        return CompletableFuture.allOf(refills.toArray(CompletableFuture[]::new))
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

  @Override
  public void close() {
    sources.forEach(source -> source.cursor.close());
  }
}
