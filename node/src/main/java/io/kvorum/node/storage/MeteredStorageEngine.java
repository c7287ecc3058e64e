package io.kvorum.node.storage;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Times every storage operation ({@code kvorum_storage_operations_seconds} by operation and
 * outcome), counts reads answered from memory and those that were not ({@code
 * kvorum_storage_memory_reads_total} by outcome), and publishes the engine's figures as gauges and
 * counters ({@code kvorum_storage_*}); watches writes for a full disk ({@link SpaceWatch}).
 */
public final class MeteredStorageEngine extends ForwardingStorageEngine {
  private final MeterRegistry registry;
  private final Counter memoryHits;
  private final Counter memoryMisses;
  private final SpaceWatch space;

  /** Timers by operation, of calls that succeeded and of those that failed. */
  private final Map<String, Timer> okTimers = new ConcurrentHashMap<>();

  private final Map<String, Timer> errorTimers = new ConcurrentHashMap<>();
  private final LongSupplier nanos;

  public MeteredStorageEngine(StorageEngine delegate, MeterRegistry registry) {
    this(delegate, registry, System::nanoTime);
  }

  /**
   * @param nanos a monotonic clock, nanoseconds ({@link System#nanoTime}): when each call was made
   */
  MeteredStorageEngine(StorageEngine delegate, MeterRegistry registry, LongSupplier nanos) {
    super(delegate);
    this.registry = registry;
    this.nanos = nanos;
    this.space = new SpaceWatch(registry);
    this.memoryHits = memoryReads("hit", registry);
    this.memoryMisses = memoryReads("miss", registry);
    gauge(
        "kvorum.storage.keys",
        "estimated stored records, tombstones included",
        s -> s.estimatedKeys());
    gauge("kvorum.storage.disk.bytes", "bytes of live data files", s -> s.diskBytes());
    gauge(
        "kvorum.storage.memory.bytes", "bytes in memtables and block cache", s -> s.memoryBytes());
    gauge(
        "kvorum.storage.compaction.pending.bytes",
        "bytes RocksDB estimates it still has to compact",
        s -> s.pendingCompactionBytes());
    gauge(
        "kvorum.storage.delayed.write.rate.bytes.per.second",
        "bytes per second RocksDB slows writes to while it stalls them, 0 when it does not",
        s -> s.delayedWriteBytesPerSecond());
    gauge(
        "kvorum.storage.write.stopped",
        "1 while RocksDB stops writes until compaction catches up, else 0",
        s -> s.writesStopped() ? 1 : 0);
    counter(
        "kvorum.storage.write.batches",
        "atomic write batches (group commits), each one write-ahead-log append",
        s -> s.writeBatches());
    counter(
        "kvorum.storage.write.batches.at.once",
        "of those batches, written on the thread that asked (an event loop) without a hand-off",
        s -> s.writeBatchesAtOnce());
    counter(
        "kvorum.storage.written.records",
        "records written in those batches",
        s -> s.recordsWritten());
  }

  private static Counter memoryReads(String outcome, MeterRegistry registry) {
    return Counter.builder("kvorum.storage.memory.reads")
        .description("reads asked of memory alone: answered (hit) or left to a get (miss)")
        .tag("outcome", outcome)
        .register(registry);
  }

  private void counter(String name, String description, ToDoubleFunction<StorageStats> figure) {
    FunctionCounter.builder(name, delegate, engine -> figure.applyAsDouble(engine.stats()))
        .description(description)
        .register(registry);
  }

  private void gauge(String name, String description, ToDoubleFunction<StorageStats> figure) {
    Gauge.builder(name, delegate, engine -> figure.applyAsDouble(engine.stats()))
        .description(description)
        .register(registry);
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    long start = nanos.getAsLong();
    return timed("get", start, delegate.get(key));
  }

  @Override
  public Optional<Optional<Record>> getFromMemory(Key key) {
    Optional<Optional<Record>> known = delegate.getFromMemory(key);
    (known.isPresent() ? memoryHits : memoryMisses).increment();
    return known;
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    long issued = nanos.getAsLong();
    return watched("put", issued, delegate.put(key, record));
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    long issued = nanos.getAsLong();
    return watched("put_all", issued, delegate.putAll(entries));
  }

  @Override
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    long issued = nanos.getAsLong();
    return watched("put_all", issued, delegate.putAllStreamed(entries));
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    long issued = nanos.getAsLong();
    // A purge that found nothing due wrote nothing, so it says nothing about space.
    return delegate
        .purge(deadBeforeMillis, limit)
        .whenComplete(
            (result, error) -> {
              timer("purge", error).record(nanos.getAsLong() - issued, TimeUnit.NANOSECONDS);
              if (error != null || result.examined() > 0) {
                space.written(issued, error);
              }
            });
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return delegate.scan(range).mapBatches(batch -> timed("scan", nanos.getAsLong(), batch));
  }

  /**
   * Times a write issued at {@code issued} (before the engine was called: a write it makes at once
   * is over when the call returns) and reports its outcome to the {@link SpaceWatch}.
   */
  private CompletableFuture<Void> watched(
      String operation, long issued, CompletableFuture<Void> write) {
    return write.whenComplete(
        (ok, error) -> {
          timer(operation, error).record(nanos.getAsLong() - issued, TimeUnit.NANOSECONDS);
          space.written(issued, error);
        });
  }

  private <T> CompletableFuture<T> timed(
      String operation, long start, CompletableFuture<T> result) {
    return result.whenComplete(
        (value, error) ->
            timer(operation, error).record(nanos.getAsLong() - start, TimeUnit.NANOSECONDS));
  }

  /**
   * An operation's timer, registered once: a registry lookup per call costs microseconds. The
   * operation's name (a literal) is the key, and a call finds its timer without building a key or a
   * lambda.
   */
  private Timer timer(String operation, Throwable error) {
    Map<String, Timer> timers = error == null ? okTimers : errorTimers;
    Timer timer = timers.get(operation);
    return timer != null ? timer : register(timers, operation, error == null ? "ok" : "error");
  }

  private Timer register(Map<String, Timer> timers, String operation, String outcome) {
    return timers.computeIfAbsent(
        operation,
        k ->
            Timer.builder("kvorum.storage.operations")
                .description("storage calls by operation and outcome, queueing included")
                .tag("operation", operation)
                .tag("outcome", outcome)
                .register(registry));
  }
}
