package io.kvorum.node.cli.load;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.RecordBatch;
import io.kvorum.node.storage.RecordSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One load: reads the records in key order on the calling thread, holds them to {@code --rate},
 * cuts them into batches of at most {@code batchRecords} records and {@value #MAX_BATCH_BYTES}
 * bytes (a larger record goes alone), and keeps up to {@code parallel} batches in flight. The first
 * batch that fails for good stops the reading; the batches in flight finish.
 */
final class Loader {
  static final int MAX_BATCH_BYTES = 1 << 20;

  /** What was read and sent; {@code failure} names the batch that was not taken, else null. */
  record Result(long values, long expiring, long tombstones, String failure) {}

  private final BatchSender sender;
  private final RateLimiter limiter;
  private final LoadProgress progress;
  private final int batchRecords;
  private final int parallel;
  private final Semaphore inFlight;
  private final AtomicReference<String> failure = new AtomicReference<>();
  private List<Entry> pending = new ArrayList<>();
  private int pendingBytes = 4;
  private long values;
  private long expiring;
  private long tombstones;

  /**
   * @param limiter one permission per record, or null for no limit
   */
  Loader(
      BatchSender sender,
      RateLimiter limiter,
      LoadProgress progress,
      int batchRecords,
      int parallel) {
    this.sender = sender;
    this.limiter = limiter;
    this.progress = progress;
    this.batchRecords = batchRecords;
    this.parallel = parallel;
    this.inFlight = new Semaphore(parallel);
  }

  Result load(RecordSource reader) throws InterruptedException {
    ExecutorService senders =
        Executors.newFixedThreadPool(
            parallel, Thread.ofPlatform().daemon().name("kvorum-load-", 1).factory());
    try {
      reader.forEach(entry -> add(entry, senders));
      if (failure.get() == null && !pending.isEmpty()) {
        flush(senders);
      }
    } catch (Stopped e) {
      if (e.interrupted) {
        throw new InterruptedException("the load was interrupted");
      }
    } finally {
      inFlight.acquireUninterruptibly(parallel);
      senders.shutdown();
    }
    return new Result(values, expiring, tombstones, failure.get());
  }

  private void add(Entry entry, ExecutorService senders) {
    if (failure.get() != null) {
      throw new Stopped(false);
    }
    if (limiter != null) {
      while (!limiter.acquirePermission()) {
        if (Thread.currentThread().isInterrupted()) {
          throw new Stopped(true);
        }
      }
    }
    Record record = entry.record();
    if (record.tombstone()) {
      tombstones++;
    } else {
      values++;
      expiring += record.hasExpiry() ? 1 : 0;
    }
    int size = RecordBatch.size(entry.key(), record);
    if (!pending.isEmpty()
        && (pending.size() >= batchRecords || pendingBytes + size > MAX_BATCH_BYTES)) {
      flush(senders);
    }
    pending.add(entry);
    pendingBytes += size;
    progress.maybePrint();
  }

  private void flush(ExecutorService senders) {
    List<Entry> entries = pending;
    pending = new ArrayList<>();
    pendingBytes = 4;
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopped(true);
    }
    senders.execute(
        () -> {
          try {
            send(entries);
          } finally {
            inFlight.release();
          }
        });
  }

  private void send(List<Entry> entries) {
    byte[] body = RecordBatch.encode(entries);
    String refused;
    try {
      refused = sender.send(body);
    } catch (InterruptedException e) {
      refused = "interrupted";
    }
    if (refused == null) {
      progress.taken(entries.size(), body.length);
      return;
    }
    failure.compareAndSet(
        null,
        "the batch of "
            + entries.size()
            + " records from key '"
            + entries.getFirst().key()
            + "' to key '"
            + entries.getLast().key()
            + "' was not taken: "
            + refused);
  }

  /** Ends the reading early: a batch failed for good, or the thread was interrupted. */
  private static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean interrupted;

    Stopped(boolean interrupted) {
      super(null, null, false, false);
      this.interrupted = interrupted;
    }
  }
}
