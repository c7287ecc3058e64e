package io.kvorum.node.replication;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Replica operations on another node's storage.
 *
 * <p>Contract: methods never block the caller; every returned future completes, successfully or
 * not, within the transport's own deadline even if the peer never answers; a failure means the peer
 * did not confirm the operation (a write may still have been applied). Callbacks may run on
 * transport threads and must not block.
 */
public interface PeerTransport extends AutoCloseable {
  /** The record {@code peer} stores for {@code key}, if any. */
  CompletableFuture<Optional<Record>> read(NodeId peer, Key key);

  /** Asks {@code peer} to store {@code record} unless it holds a newer one. */
  CompletableFuture<Void> write(NodeId peer, Key key, Record record);

  /** A cursor over {@code peer}'s own records in {@code range}, tombstones included. */
  ScanCursor scan(NodeId peer, KeyRange range);

  @Override
  void close();
}
