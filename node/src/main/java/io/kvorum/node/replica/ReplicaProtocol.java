package io.kvorum.node.replica;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import java.util.Optional;

/**
 * The replica protocol: a peer's own records, read, written and scanned. Its operations, and its
 * handler ({@link #serve}); {@link Replicas} calls them.
 */
public final class ReplicaProtocol {
  /** The record a peer stores for a key, if any. */
  public static final Operation<Key, Optional<Record>> READ = Operation.of("read");

  /**
   * Asks a peer to store a record unless it holds a newer one. Writes that arrive together are
   * stored as one batch.
   */
  public static final Operation<Entry, Void> WRITE = Operation.of("write");

  /**
   * The items of one client batch that a peer holds, in one message: its reads and writes, each
   * answered on its own ({@link ReplicaBatch}).
   */
  public static final Operation<ReplicaBatch, ReplicaBatch.Answer> BATCH = Operation.of("batch");

  /** A peer's own records in a range, tombstones and expired records included, in key order. */
  public static final CursorOperation<ReplicaScan> SCAN =
      new CursorOperation<>("scan", Deadline.REQUEST);

  private ReplicaProtocol() {}

  /** Serves this node's replicas to its peers. */
  public static void serve(PeerHandlers handlers, LocalReplicas replicas) {
    handlers
        .on(READ, replicas::read)
        .on(WRITE, write -> replicas.write(write.key(), write.record()), replicas::writeAll)
        .on(BATCH, replicas::batch)
        .on(SCAN, replicas::scan);
  }
}
