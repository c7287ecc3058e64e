package io.kvorum.node.membership;

import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A node's replica service with its membership: gossip and joins go to {@link MembershipService}.
 */
public final class MemberReplicaService implements ReplicaService {
  private final ReplicaService replicas;
  private final MembershipService membership;

  public MemberReplicaService(ReplicaService replicas, MembershipService membership) {
    this.replicas = replicas;
    this.membership = membership;
  }

  @Override
  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return membership.gossip(peer, state);
  }

  @Override
  public CompletableFuture<ClusterState> join(Member member) {
    return membership.admit(member);
  }

  @Override
  public CompletableFuture<Optional<Record>> read(Key key) {
    return replicas.read(key);
  }

  @Override
  public CompletableFuture<Void> write(Key key, Record record) {
    return replicas.write(key, record);
  }

  @Override
  public CompletableFuture<Void> writeAll(List<Entry> writes) {
    return replicas.writeAll(writes);
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return replicas.scan(range);
  }

  @Override
  public ScanCursor handoff(long epoch, NodeId to, Key start) {
    return membership.handoff(epoch, to, start);
  }

  @Override
  public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
    return replicas.treeHashes(peer, level, positions);
  }

  @Override
  public ScanCursor segments(NodeId peer, int[] segments) {
    return replicas.segments(peer, segments);
  }

  @Override
  public CompletableFuture<Long> hello(NodeId peer) {
    return replicas.hello(peer);
  }

  @Override
  public CompletableFuture<Long> ping() {
    return replicas.ping();
  }

  @Override
  public Optional<PeerTransport.StorageReport> storageReport() {
    return replicas.storageReport();
  }
}
