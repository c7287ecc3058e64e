package io.kvorum.node.storage;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The records this node holds, one per key, in unsigned byte order of keys.
 *
 * <p>Contract, for every implementation:
 *
 * <ul>
 *   <li>Per key, the stored record is whichever record wins {@link Record#LAST_WRITER_WINS} among
 *       all records ever put (and not purged since), whatever order puts arrive in and however many
 *       run concurrently. A put is a blind write: it does not report whether it won.
 *   <li>The records of one {@link #putAll} become visible together: a scan or a read never sees
 *       some of them applied and others not.
 *   <li>Tombstones and expired records are stored and returned like values (callers resolve them)
 *       until {@link #purge} removes them.
 *   <li>A put that completed successfully survives a crash of the process (not necessarily of the
 *       machine, unless the engine was opened to fsync: then every put, alone or in a batch, is
 *       fsynced before it completes).
 *   <li>Methods never block the calling thread on I/O: they return futures, completed on the
 *       engine's own executor when I/O is involved. When that executor (or the engine's queue of
 *       writes) is saturated they fail at once with {@link
 *       io.kvorum.node.core.OverloadedException}. Failures of the engine itself come as {@link
 *       io.kvorum.node.core.StorageException}.
 * </ul>
 */
public interface StorageEngine extends AutoCloseable {
  /** The record stored for {@code key}, if any. */
  CompletableFuture<Optional<Record>> get(Key key);

  /**
   * What {@link #get} would answer for {@code key} now, if the engine can tell from memory alone
   * (recent writes, cached blocks): on the calling thread, without I/O and without waiting for a
   * lock another thread holds. Empty when it cannot (the answer needs the disk, or the engine is
   * closed or failing): then {@link #get} must be asked, and reports any failure. Never blocks, so
   * an event loop may call it to answer a read without handing it to the engine's executor.
   *
   * @return the stored record or its absence, known from memory; or empty: not known
   */
  Optional<Optional<Record>> getFromMemory(Key key);

  /**
   * Offers {@code record} for {@code key}: it is kept unless the stored record wins
   * last-writer-wins against it. Completes once it is durable (as the contract above says).
   */
  CompletableFuture<Void> put(Key key, Record record);

  /**
   * Offers each entry's record as {@link #put} would, atomically: all of them become visible
   * together, and an engine that can write them as one batch (one write-ahead-log append, one
   * fsync) does. Entries may repeat a key; the winner among them and the stored record is kept.
   * Completes once every entry is stored; fails if they could not be.
   */
  CompletableFuture<Void> putAll(List<Entry> entries);

  /**
   * Offers records that a membership change streams to this node as {@link #putAll} does, without
   * logging them as changes ({@link #changes}): they are copies of records other nodes hold, not
   * changes made to the data. An engine that keeps a change log MUST override this.
   */
  default CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return putAll(entries);
  }

  /**
   * The changes this engine applied ({@link ChangeLog}): every {@link #put} and {@link #putAll},
   * logged in the same atomic write as the records; {@link ChangeLog#NONE} for an engine that keeps
   * no log.
   */
  default ChangeLog changes() {
    return ChangeLog.NONE;
  }

  /**
   * A cursor over the stored records in {@code range}, in key order. It yields every record that
   * was stored when it opened and is not replaced while it runs; puts made while it is open may or
   * may not show. It must be closed.
   */
  ScanCursor scan(KeyRange range);

  /**
   * Removes tombstones and expired values that have been dead for at least a grace period: records
   * whose {@link Record#diesAtMillis()} is before {@code deadBeforeMillis} (tombstones written
   * before it, values expired before it). A record replaced by a newer write in the meantime is
   * kept, however the write and the purge interleave. An engine that also keeps Paxos acceptor
   * states in its own database (the conditional writes' acceptors) keeps a dead record whose key
   * still holds a state, until a purge after that state was forgotten.
   *
   * @param limit at most this many records are examined in one call
   * @return how many records were removed; fewer than {@code limit} examined means the sweep is
   *     done
   */
  CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit);

  /**
   * Removes the record of {@code key} if it is still the one of {@code version}: for a record this
   * node no longer owns after a membership change. A newer record stored meanwhile is kept.
   *
   * @return whether a record was removed
   */
  CompletableFuture<Boolean> drop(Key key, Version version);

  /** Figures for monitoring; cheap, callable from any thread. */
  StorageStats stats();

  /**
   * Syncs the write-ahead log (records, hints and acceptor states alike) if anything was written
   * since the last sync this method made; whether it synced. Called every {@code --sync-writes
   * INTERVAL} by one thread, off the event loops ({@link WalSyncer}), and by an ownership sweep
   * before it records the epoch it swept (on the membership worker). An engine that keeps no log of
   * its own has nothing to sync.
   *
   * @throws io.kvorum.node.core.StorageException if the sync failed
   */
  default boolean syncWal() {
    return false;
  }

  /** Releases resources; pending operations may fail. Idempotent. */
  @Override
  void close();

  /** The outcome of one {@link #purge} call. */
  record PurgeResult(int examined, int removed) {}
}
