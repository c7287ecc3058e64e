package io.kvorum.node.transport;

import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.UnavailableException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a node serves to its peers: operations on its own replicas. A transport's server side (gRPC,
 * or the in-memory network of tests) calls it for every request a peer sends.
 *
 * <p>Contract: never blocks the caller; {@link #write} keeps the last-writer-wins winner; {@link
 * #hello} completes only once every hint this node holds for {@code peer} was delivered or found
 * undeliverable.
 */
public interface ReplicaService {
  CompletableFuture<Optional<Record>> read(Key key);

  CompletableFuture<Void> write(Key key, Record record);

  /**
   * Stores several records, each as {@link #write} would, ideally as one storage batch: what a
   * transport calls for the writes that arrived together in one message. A failure fails every one
   * of them, though some may have been applied.
   */
  default CompletableFuture<Void> writeAll(List<Entry> writes) {
    return CompletableFuture.allOf(
        writes.stream()
            .map(write -> write(write.key(), write.record()))
            .toArray(CompletableFuture[]::new));
  }

  /**
   * Paxos of conditional writes (SPEC §10): this node's acceptor promises {@code ballot} for {@code
   * key} or refuses it; completes once the new state is durable.
   */
  default CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
    return CompletableFuture.failedFuture(new UnavailableException("no acceptor here"));
  }

  /** Paxos: this node's acceptor accepts {@code proposal} for {@code key}, or refuses it. */
  default CompletableFuture<Reply> accept(Key key, Proposal proposal) {
    return CompletableFuture.failedFuture(new UnavailableException("no acceptor here"));
  }

  /** This node's own records in {@code range}, tombstones and expired records included. */
  ScanCursor scan(KeyRange range);

  /**
   * Anti-entropy: the hashes of the tree this node shares with {@code peer} at {@code positions} of
   * {@code level}. Fails with {@link io.kvorum.node.core.UnavailableException} while the trees are
   * being built, {@link io.kvorum.node.core.InvalidRequestException} for a level, position or peer
   * that does not exist.
   */
  CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions);

  /**
   * Anti-entropy: this node's records of {@code segments} that {@code peer} should hold too, sent
   * at the node's repair rate.
   */
  ScanCursor segments(NodeId peer, int[] segments);

  /**
   * {@code peer} has (re)started: deliver the hints held for it now.
   *
   * @return how many hints were delivered
   */
  CompletableFuture<Long> hello(NodeId peer);

  /**
   * Membership: {@code peer}'s cluster state; answers this node's after adopting {@code state} if
   * it was newer.
   */
  default CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return CompletableFuture.failedFuture(new UnavailableException("no membership here"));
  }

  /**
   * Membership: admits {@code member} as a joining node and answers the new state; fails with
   * {@link UnavailableException} while another change is in progress.
   */
  default CompletableFuture<ClusterState> join(Member member) {
    return CompletableFuture.failedFuture(new UnavailableException("no membership here"));
  }

  /**
   * Membership: this node's records from {@code start}, in key order, that the change of {@code
   * epoch} gives a new replica ({@code to}, or any when null) and that this node is the one to hand
   * off ({@link io.kvorum.node.cluster.Owners#handoffSource}). Fails with an {@link
   * io.kvorum.node.core.InvalidRequestException} unless that change is in progress here.
   */
  default ScanCursor handoff(long epoch, NodeId to, Key start) {
    return ScanCursor.failed(new UnavailableException("no membership here"));
  }

  /**
   * This node's wall clock, Unix milliseconds, for a peer measuring its clock offset to this node
   * ({@link PeerTransport#ping}).
   */
  CompletableFuture<Long> ping();

  /**
   * The membership calls a node serves its peers (SPEC §8), as {@link #gossip}, {@link #join} and
   * {@link #handoff} describe them; {@link #NONE} where there is no membership (some tests).
   */
  interface Membership {
    /** Answers {@link ReplicaService#gossip}. */
    CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state);

    /** Answers {@link ReplicaService#join}: admits {@code member} as a joining node. */
    CompletableFuture<ClusterState> admit(Member member);

    /** Answers {@link ReplicaService#handoff}. */
    ScanCursor handoff(long epoch, NodeId to, Key start);

    /** No membership here: every call fails as {@link ReplicaService}'s defaults do. */
    Membership NONE =
        new Membership() {
          @Override
          public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
            return CompletableFuture.failedFuture(new UnavailableException("no membership here"));
          }

          @Override
          public CompletableFuture<ClusterState> admit(Member member) {
            return CompletableFuture.failedFuture(new UnavailableException("no membership here"));
          }

          @Override
          public ScanCursor handoff(long epoch, NodeId to, Key start) {
            return ScanCursor.failed(new UnavailableException("no membership here"));
          }
        };
  }

  /**
   * This node's storage figures, sent with every answer to a ping; empty when they cannot be read
   * now (the storage is closed or failing). Cheap: called on the transport's threads.
   */
  default Optional<PeerTransport.StorageReport> storageReport() {
    return Optional.empty();
  }
}
