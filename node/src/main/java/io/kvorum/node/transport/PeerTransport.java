package io.kvorum.node.transport;

import io.kvorum.node.clock.PeerClocks;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Replica operations on another node's storage. Every implementation MUST:
 *
 * <ul>
 *   <li><b>Carry the clock both ways</b> (SPEC §5). Every message sent to a peer carries this
 *       node's current clock ({@link io.kvorum.node.clock.Clock#current()}, not a freshly issued
 *       version), and the peer moves its clock past it ({@link io.kvorum.node.clock.Clock#observe})
 *       before serving the request. Every message back (an answer, a failure, a scan batch) carries
 *       the peer's clock, and this node observes it before the returned future completes. So a node
 *       that has seen a peer's answer issues versions past everything that peer had seen.
 *   <li><b>Deliver the peer's errors as themselves.</b> A failure the peer raised arrives as the
 *       same {@link io.kvorum.node.core.KvorumException}, of the same {@link
 *       io.kvorum.node.core.FailureKind}: {@link io.kvorum.node.core.OverloadedException}, {@link
 *       io.kvorum.node.core.StorageException} of the same kind (a full disk is NO_SPACE), {@link
 *       io.kvorum.node.core.UnavailableException}, {@link
 *       io.kvorum.node.core.InvalidRequestException}, {@link
 *       io.kvorum.node.core.ClockOffsetException} with its offsets; anything else the peer failed
 *       with arrives as a {@link io.kvorum.node.core.StorageException} FAILURE. {@link
 *       PeerUnavailableException} means the transport got no answer: no connection, no answer
 *       within the deadline, a broken connection, a closed transport (and, from decorators, an open
 *       circuit breaker or a full bulkhead). No failure promises that a write was not applied.
 *   <li><b>Keep deadlines.</b> Every returned future completes, with the answer or a failure,
 *       within the transport's deadline even if the peer never answers: the call timeout for reads,
 *       writes, pings and each scan batch, the hello timeout for hellos. A call waiting on a
 *       connection that breaks fails at once rather than at its deadline.
 *   <li><b>Answer each call once, with its own answer</b>, whatever the number of concurrent calls,
 *       their grouping on the wire, delays, losses and reconnections. Calls to one peer are not
 *       ordered: answers come back in any order, and concurrent writes may be applied in any order
 *       (last-writer-wins makes that harmless). A scan's batches come in key order.
 *   <li><b>Never block.</b> Methods may be called from any thread, including from completions of
 *       this transport's futures; futures may complete on the transport's I/O threads, so what runs
 *       on their completion must not block either.
 * </ul>
 *
 * <p>{@code PeerTransportContract} in the tests checks all of it for every implementation.
 */
public interface PeerTransport extends AutoCloseable {
  /** The record {@code peer} stores for {@code key}, if any. */
  CompletableFuture<Optional<Record>> read(NodeId peer, Key key);

  /** Asks {@code peer} to store {@code record} unless it holds a newer one. */
  CompletableFuture<Void> write(NodeId peer, Key key, Record record);

  /**
   * Paxos of conditional writes (SPEC §10): asks {@code peer}'s acceptor to promise {@code ballot}
   * for {@code key}; the reply is a promise (with what the acceptor holds for the key) or a refusal
   * naming the higher ballot it holds. Same deadline as a write.
   */
  default CompletableFuture<Reply> prepare(NodeId peer, Key key, Ballot ballot) {
    return CompletableFuture.failedFuture(
        new PeerUnavailableException(peer, "this transport carries no Paxos", null));
  }

  /**
   * Paxos: asks {@code peer}'s acceptor to accept {@code proposal} for {@code key}. Same deadline
   * as a write.
   */
  default CompletableFuture<Reply> accept(NodeId peer, Key key, Proposal proposal) {
    return CompletableFuture.failedFuture(
        new PeerUnavailableException(peer, "this transport carries no Paxos", null));
  }

  /** A cursor over {@code peer}'s own records in {@code range}, tombstones included. */
  ScanCursor scan(NodeId peer, KeyRange range);

  /**
   * Announces this node to {@code peer}, which delivers the hints it holds for this node before it
   * answers.
   *
   * @return how many hints the peer delivered
   */
  CompletableFuture<Long> hello(NodeId peer);

  /**
   * Asks {@code peer} for its wall clock, to measure the clock offset to it: the caller notes its
   * own wall clock before the call and when the answer arrives (NTP-style). Carries the clock both
   * ways and keeps the call deadline like every other call.
   *
   * @return the peer's wall clock, Unix milliseconds, when it answered
   */
  CompletableFuture<Long> ping(NodeId peer);

  /**
   * Anti-entropy: the hashes of the nodes at {@code positions} of {@code level} of the hash tree
   * {@code peer} shares with this node, one per position in the same order. Same deadline as a
   * read.
   */
  CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions);

  /**
   * Anti-entropy: a cursor over {@code peer}'s records of the hash-tree {@code segments} that this
   * node should hold too, tombstones included, in key order. Each batch has a deadline of {@link
   * #SEGMENT_BATCH_TIMEOUT}: the peer scans all its records to find those of the segments, and may
   * pass many before it finds the next one to send.
   */
  ScanCursor segments(NodeId peer, int[] segments);

  /** The deadline of one batch of {@link #segments}. */
  java.time.Duration SEGMENT_BATCH_TIMEOUT = java.time.Duration.ofMinutes(1);

  /**
   * Membership: gives {@code peer} this node's cluster state and returns the peer's after it
   * considered it (the newer of the two). Same deadline as a read.
   */
  default CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return CompletableFuture.failedFuture(
        new PeerUnavailableException(peer, "this transport carries no membership", null));
  }

  /**
   * Membership: a cursor over {@code peer}'s records from {@code start} that the change of {@code
   * epoch} gives a new replica ({@code to}, or any when null) and that {@code peer} is the one to
   * hand off ({@link io.kvorum.node.cluster.Owners#handoffSource}), in key order. Each batch has a
   * deadline of {@link #SEGMENT_BATCH_TIMEOUT}: the peer passes over the records it does not hand
   * off.
   */
  default ScanCursor handoff(NodeId peer, long epoch, NodeId to, Key start) {
    return ScanCursor.failed(
        new PeerUnavailableException(peer, "this transport carries no membership", null));
  }

  /**
   * Membership: asks the member listening at {@code host}:{@code port} (not necessarily a peer of
   * this transport yet) to admit {@code self} as a joining node.
   *
   * @return the cluster state in which {@code self} is joining
   */
  default CompletableFuture<ClusterState> join(String host, int port, Member self) {
    return CompletableFuture.failedFuture(
        new PeerUnavailableException(self.id(), "this transport carries no membership", null));
  }

  /**
   * The members this transport keeps connections to from now on (this node among them or not):
   * connections to new ones open, those to members no longer listed close.
   */
  default void members(List<Member> members) {}

  /** How this transport sees {@code peer} now. */
  PeerState state(NodeId peer);

  /**
   * What {@code peer} said of its own storage in its latest answer to a {@link #ping}; empty if it
   * never answered one since this transport started, or said nothing of it (an older version).
   * Decorators forward it; a transport that cannot carry it keeps the default.
   */
  default Optional<StorageReport> reportedStorage(NodeId peer) {
    return Optional.empty();
  }

  /** This transport as the clock offsets read the peers' wall clocks: {@link #ping}. */
  default PeerClocks peerClocks() {
    PeerTransport transport = this;
    return new PeerClocks() {
      @Override
      public CompletableFuture<Long> wallClock(NodeId peer) {
        return transport.ping(peer);
      }

      @Override
      public boolean reachable(NodeId peer) {
        return transport.state(peer).reachable();
      }
    };
  }

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

  /**
   * A node's storage as it reports it to its peers, for operators (the figures of {@code
   * kvorum_storage_keys} and {@code kvorum_storage_disk_bytes}).
   *
   * @param records approximate number of stored records, tombstones included
   * @param diskBytes bytes of live data files on disk
   */
  record StorageReport(long records, long diskBytes) {}
}
