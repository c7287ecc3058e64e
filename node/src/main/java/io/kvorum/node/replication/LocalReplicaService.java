package io.kvorum.node.replication;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.replication.repair.AntiEntropy;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.ReplicaService;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What this node does for its peers: its own replicas, the hints it holds for them, and its side of
 * their anti-entropy exchanges.
 */
public final class LocalReplicaService implements ReplicaService {
  private final StorageEngine storage;
  private final HintedHandoff handoff;
  private final AntiEntropy repair;

  public LocalReplicaService(StorageEngine storage, HintedHandoff handoff, AntiEntropy repair) {
    this.storage = storage;
    this.handoff = handoff;
    this.repair = repair;
  }

  @Override
  public CompletableFuture<Optional<Record>> read(Key key) {
    return storage.get(key);
  }

  @Override
  public CompletableFuture<Void> write(Key key, Record record) {
    return storage.put(key, record);
  }

  @Override
  public CompletableFuture<Void> writeAll(List<Entry> writes) {
    return storage.putAll(writes);
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return storage.scan(range);
  }

  @Override
  public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
    try {
      return repair.hashes(peer, level, positions);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(new InvalidRequestException(null, e.getMessage()));
    }
  }

  @Override
  public ScanCursor segments(NodeId peer, int[] segments) {
    try {
      return repair.segments(peer, segments);
    } catch (IllegalArgumentException e) {
      return ScanCursor.failed(new InvalidRequestException(null, e.getMessage()));
    }
  }

  @Override
  public CompletableFuture<Long> hello(NodeId peer) {
    return handoff.welcome(peer);
  }
}
