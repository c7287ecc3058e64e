package io.kvorum.node.replication;

import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import io.kvorum.node.transport.PeerTransport;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reaches the storage and the Paxos acceptor of any node: this node's directly, every other through
 * the transport.
 */
public final class Replicas {
  private final NodeId self;
  private final StorageEngine local;
  private final Acceptor acceptor;
  private final PeerTransport peers;

  public Replicas(NodeId self, StorageEngine local, Acceptor acceptor, PeerTransport peers) {
    this.self = self;
    this.local = local;
    this.acceptor = acceptor;
    this.peers = peers;
  }

  public NodeId self() {
    return self;
  }

  public boolean isSelf(NodeId node) {
    return self.equals(node);
  }

  /** Paxos: asks {@code node}'s acceptor to promise {@code ballot} for {@code key}. */
  public CompletableFuture<Reply> prepare(NodeId node, Key key, Ballot ballot) {
    return isSelf(node) ? acceptor.prepare(key, ballot) : peers.prepare(node, key, ballot);
  }

  /** Paxos: asks {@code node}'s acceptor to accept {@code proposal} for {@code key}. */
  public CompletableFuture<Reply> accept(NodeId node, Key key, Proposal proposal) {
    return isSelf(node) ? acceptor.accept(key, proposal) : peers.accept(node, key, proposal);
  }

  public CompletableFuture<Optional<Record>> read(NodeId node, Key key) {
    return isSelf(node) ? local.get(key) : peers.read(node, key);
  }

  public CompletableFuture<Void> write(NodeId node, Key key, Record record) {
    return isSelf(node) ? local.put(key, record) : peers.write(node, key, record);
  }

  public ScanCursor scan(NodeId node, KeyRange range) {
    return isSelf(node) ? local.scan(range) : peers.scan(node, range);
  }

  /**
   * {@code node}'s storage figures: this node's own now, a peer's as it reported them in its latest
   * answer to a ping; empty when unknown.
   */
  public Optional<PeerTransport.StorageReport> storage(NodeId node) {
    return isSelf(node) ? storageReport(local) : peers.reportedStorage(node);
  }

  /** The figures of {@code storage} that a node reports; empty if they cannot be read now. */
  public static Optional<PeerTransport.StorageReport> storageReport(StorageEngine storage) {
    try {
      StorageStats stats = storage.stats();
      return Optional.of(new PeerTransport.StorageReport(stats.estimatedKeys(), stats.diskBytes()));
    } catch (RuntimeException e) {
      // A failing storage says so on every request; the figures are only for display.
      return Optional.empty();
    }
  }

  /** How {@code node} is seen from here; this node itself is always reachable. */
  public PeerTransport.PeerState state(NodeId node) {
    return isSelf(node) ? new PeerTransport.PeerState(true, "self") : peers.state(node);
  }
}
