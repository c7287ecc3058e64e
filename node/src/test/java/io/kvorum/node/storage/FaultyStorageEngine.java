package io.kvorum.node.storage;

import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A storage engine that fails or stalls on demand, around a real one. Scans can be made to fail
 * after a number of batches, to cut a range off midway.
 */
public final class FaultyStorageEngine extends ForwardingStorageEngine {
  /** Own threads: the common pool may have a single thread on small machines, busy in tests. */
  private static final Executor DELAYS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "faulty-storage-delay");
            t.setDaemon(true);
            return t;
          });

  private volatile RuntimeException failure;
  private volatile RuntimeException writeFailure;
  private volatile Duration delay = Duration.ZERO;
  private final AtomicInteger scanBatchesBeforeFailure = new AtomicInteger(-1);

  public FaultyStorageEngine(StorageEngine delegate) {
    super(delegate);
  }

  /**
   * Storage for a test node: a faulty engine over an in-memory one (and in-memory hints), handed to
   * {@code created} when the node opens it.
   */
  public static StorageFactory inMemory(Consumer<FaultyStorageEngine> created) {
    return (directory, settings, executor, threading) -> {
      FaultyStorageEngine engine = new FaultyStorageEngine(new InMemoryStorageEngine());
      created.accept(engine);
      return new LocalStorage(engine, new InMemoryHintStore(), new InMemoryAcceptorStore());
    };
  }

  /** Every operation from now on fails with {@code error}. */
  public void failWith(RuntimeException error) {
    this.failure = error;
  }

  /**
   * Every write (put, putAll, purge) from now on fails with {@code error}; reads and scans go on,
   * as on a full disk.
   */
  public void failWritesWith(RuntimeException error) {
    this.writeFailure = error;
  }

  /** Every operation from now on completes {@code delay} late. */
  public void delay(Duration delay) {
    this.delay = delay;
  }

  /** Scan batches after the first {@code batches} fail. */
  public void failScansAfter(int batches) {
    scanBatchesBeforeFailure.set(batches);
  }

  public void heal() {
    failure = null;
    writeFailure = null;
    delay = Duration.ZERO;
    scanBatchesBeforeFailure.set(-1);
  }

  private <T> CompletableFuture<T> faultyWrite(Supplier<CompletableFuture<T>> operation) {
    RuntimeException error = writeFailure;
    return error != null ? CompletableFuture.failedFuture(error) : faulty(operation);
  }

  private <T> CompletableFuture<T> faulty(Supplier<CompletableFuture<T>> operation) {
    RuntimeException error = failure;
    if (error != null) {
      return CompletableFuture.failedFuture(error);
    }
    Duration d = delay;
    if (d.isZero()) {
      return operation.get();
    }
    return CompletableFuture.supplyAsync(
            () -> null,
            CompletableFuture.delayedExecutor(d.toMillis(), TimeUnit.MILLISECONDS, DELAYS))
        .thenCompose(ignored -> operation.get());
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return faulty(() -> delegate.get(key));
  }

  /** Answers from memory only while no fault is set: a failing or slow engine must be asked. */
  @Override
  public Optional<Optional<Record>> getFromMemory(Key key) {
    return failure == null && delay.isZero() ? delegate.getFromMemory(key) : Optional.empty();
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    return faultyWrite(() -> delegate.put(key, record));
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    return faultyWrite(() -> delegate.putAll(entries));
  }

  @Override
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return faultyWrite(() -> delegate.putAllStreamed(entries));
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    ScanCursor cursor = delegate.scan(range);
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        if (scanBatchesBeforeFailure.get() == 0) {
          return CompletableFuture.failedFuture(new IllegalStateException("injected scan failure"));
        }
        scanBatchesBeforeFailure.updateAndGet(n -> n > 0 ? n - 1 : n);
        return faulty(() -> cursor.next(maxEntries, maxBytes));
      }

      @Override
      public void close() {
        cursor.close();
      }
    };
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return faultyWrite(() -> delegate.purge(deadBeforeMillis, limit));
  }

  @Override
  public CompletableFuture<Boolean> drop(Key key, Version version) {
    return faultyWrite(() -> delegate.drop(key, version));
  }
}
