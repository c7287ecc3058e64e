package io.kvorum.node.replica;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reaches the replicas of any node: this node's storage directly, every other through the
 * transport.
 */
public final class Replicas {
  private final NodeId self;
  private final StorageEngine local;
  private final PeerTransport peers;

  public Replicas(NodeId self, StorageEngine local, PeerTransport peers) {
    this.self = self;
    this.local = local;
    this.peers = peers;
  }

  public NodeId self() {
    return self;
  }

  public boolean isSelf(NodeId node) {
    return self.equals(node);
  }

  public CompletableFuture<Optional<Record>> read(NodeId node, Key key) {
    return isSelf(node) ? local.get(key) : peers.call(node, ReplicaProtocol.READ, key);
  }

  public CompletableFuture<Void> write(NodeId node, Key key, Record record) {
    return isSelf(node)
        ? local.put(key, record)
        : peers.call(node, ReplicaProtocol.WRITE, new Entry(key, record));
  }

  /**
   * Sends {@code node} the items of a client batch it holds, in one message; this node's own are
   * served from its storage at once.
   */
  public CompletableFuture<ReplicaBatch.Answer> batch(NodeId node, ReplicaBatch batch) {
    return isSelf(node)
        ? ReplicaBatch.serve(local, batch, record -> Optional.empty())
        : peers.call(node, ReplicaProtocol.BATCH, batch);
  }

  public ScanCursor scan(NodeId node, ReplicaScan scan) {
    return isSelf(node) ? scan.open(local) : peers.open(node, ReplicaProtocol.SCAN, scan);
  }

  /** How {@code node} is seen from here; this node itself is always reachable. */
  public PeerTransport.PeerState state(NodeId node) {
    return isSelf(node) ? new PeerTransport.PeerState(true, "self") : peers.state(node);
  }
}
