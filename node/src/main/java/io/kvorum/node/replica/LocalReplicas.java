package io.kvorum.node.replica;

import io.kvorum.node.clock.FutureVersions;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * This node's replicas as its peers reach them ({@link ReplicaProtocol}): reads and scans of its
 * storage, and writes, except those versioned too far ahead of this node's wall clock ({@link
 * FutureVersions}).
 */
public final class LocalReplicas {
  private final StorageEngine storage;
  private final FutureVersions future;

  public LocalReplicas(StorageEngine storage, FutureVersions future) {
    this.storage = storage;
    this.future = future;
  }

  public CompletableFuture<Optional<Record>> read(Key key) {
    return storage.get(key);
  }

  public CompletableFuture<Void> write(Key key, Record record) {
    Optional<ClockOffsetException> refusal = future.refusal(record);
    return refusal.isPresent()
        ? CompletableFuture.failedFuture(refusal.get())
        : storage.put(key, record);
  }

  /**
   * Stores the writes that are not too far ahead, as one batch; fails all if one was (a failure
   * fails every write of a batch, though some may have been applied).
   */
  public CompletableFuture<Void> writeAll(List<Entry> writes) {
    long wall = future.wallMillis();
    List<Entry> accepted =
        writes.stream().filter(w -> future.refusal(w.record(), wall).isEmpty()).toList();
    if (accepted.size() == writes.size()) {
      return storage.putAll(writes);
    }
    ClockOffsetException refused =
        writes.stream()
            .map(w -> future.refusal(w.record(), wall))
            .flatMap(Optional::stream)
            .findFirst()
            .orElseThrow();
    CompletableFuture<Void> stored =
        accepted.isEmpty() ? CompletableFuture.completedFuture(null) : storage.putAll(accepted);
    return stored.thenCompose(ok -> CompletableFuture.failedFuture(refused));
  }

  /**
   * Serves the items of a client batch this node holds: each answered on its own, writes versioned
   * too far ahead refused one by one ({@link ReplicaBatch#serve}).
   */
  public CompletableFuture<ReplicaBatch.Answer> batch(ReplicaBatch batch) {
    long wall = future.wallMillis();
    return ReplicaBatch.serve(storage, batch, record -> future.refusal(record, wall));
  }

  public ScanCursor scan(ReplicaScan scan) {
    return scan.open(storage);
  }

  /** This node's storage figures, as it reports them; empty if they cannot be read now. */
  public Optional<StorageReport> storageReport() {
    return report(storage);
  }

  /** The figures of {@code storage} that a node reports; empty if they cannot be read now. */
  public static Optional<StorageReport> report(StorageEngine storage) {
    try {
      StorageStats stats = storage.stats();
      return Optional.of(new StorageReport(stats.estimatedKeys(), stats.diskBytes()));
    } catch (RuntimeException e) {
      // A failing storage says so on every request; the figures are only for display.
      return Optional.empty();
    }
  }
}
