package io.kvorum.node.storage;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The records this node holds, one per key, in unsigned byte order of keys.
 *
 * <p>Contract, for every implementation:
 *
 * <ul>
 *   <li>{@link #put} keeps, per key, whichever record wins {@link Record#LAST_WRITER_WINS} among
 *       all records ever put, whatever order puts arrive in and however many run concurrently.
 *   <li>Tombstones and expired records are stored and returned like values (callers resolve them)
 *       until {@link #purge} removes them.
 *   <li>A put that completed successfully survives a crash of the process (not necessarily of the
 *       machine, unless the engine was opened to fsync).
 *   <li>Methods never block the calling thread on I/O: they return futures, completed on the
 *       engine's own executor when I/O is involved. When that executor is saturated they fail at
 *       once with {@link io.kvorum.node.core.OverloadedException}. Failures of the engine itself
 *       come as {@link io.kvorum.node.core.StorageException}.
 * </ul>
 */
public interface StorageEngine extends AutoCloseable {
  /** The record stored for {@code key}, if any. */
  CompletableFuture<Optional<Record>> get(Key key);

  /**
   * Stores {@code record} unless the stored record wins last-writer-wins against it.
   *
   * @return whether {@code record} is now the stored record (false: a newer one was kept)
   */
  CompletableFuture<Boolean> put(Key key, Record record);

  /**
   * Stores each entry's record as {@link #put} would, together: an engine that can write them as
   * one batch (one write-ahead-log append, one fsync) does. Completes once every entry is stored;
   * fails if any could not be.
   */
  default CompletableFuture<Void> putAll(List<Entry> entries) {
    return CompletableFuture.allOf(
        entries.stream()
            .map(entry -> put(entry.key(), entry.record()))
            .toArray(CompletableFuture[]::new));
  }

  /**
   * A cursor over the stored records in {@code range}, in key order. It yields every record that
   * was stored when it opened and is not replaced while it runs; puts made while it is open may or
   * may not show. It must be closed.
   */
  ScanCursor scan(KeyRange range);

  /**
   * Removes tombstones and expired values that have been dead for at least a grace period:
   * tombstones whose version's physical time is before {@code deadBeforeMillis}, values whose
   * expiry is before it. A record replaced by a newer write in the meantime is kept.
   *
   * @param limit at most this many records are examined in one call
   * @return how many records were removed; fewer than {@code limit} examined means the sweep is
   *     done
   */
  CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit);

  /** Figures for monitoring; cheap, callable from any thread. */
  StorageStats stats();

  /** Releases resources; pending operations may fail. Idempotent. */
  @Override
  void close();

  /** The outcome of one {@link #purge} call. */
  record PurgeResult(int examined, int removed) {}
}
