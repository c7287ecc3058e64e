package io.kvorum.node.transport;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Replica operations on another node's storage.
 *
 * <p>Contract: methods never block the caller; every returned future completes, successfully or
 * not, within the transport's deadline even if the peer never answers; a failure (typically {@link
 * PeerUnavailableException}) means the peer did not confirm the operation, though a write may still
 * have been applied. Callbacks may run on transport threads and must not block.
 */
public interface PeerTransport extends AutoCloseable {
  /** The record {@code peer} stores for {@code key}, if any. */
  CompletableFuture<Optional<Record>> read(NodeId peer, Key key);

  /** Asks {@code peer} to store {@code record} unless it holds a newer one. */
  CompletableFuture<Void> write(NodeId peer, Key key, Record record);

  /** A cursor over {@code peer}'s own records in {@code range}, tombstones included. */
  ScanCursor scan(NodeId peer, KeyRange range);

  /**
   * Announces this node to {@code peer}, which delivers the hints it holds for this node before it
   * answers.
   *
   * @return how many hints the peer delivered
   */
  CompletableFuture<Long> hello(NodeId peer);

  /** How this transport sees {@code peer} now. */
  PeerState state(NodeId peer);

  /** Calls {@code listener} whenever a peer becomes reachable again (e.g. its connection is up). */
  void onPeerReachable(Consumer<NodeId> listener);

  /**
   * {@code peer} has just shown that it is alive (it said hello): forget what its absence taught
   * (connection back-off, open circuit breaker) so that calls to it go through at once.
   */
  void peerAnnounced(NodeId peer);

  @Override
  void close();

  /**
   * A peer as a transport sees it.
   *
   * @param reachable whether calls are expected to get through
   * @param detail why not, or the state of its circuit breaker ("closed", "open", "half_open")
   */
  record PeerState(boolean reachable, String detail) {}
}
