package io.kvorum.node.transport;

import io.kvorum.node.antientropy.RepairProtocol;
import io.kvorum.node.changes.ChangesProtocol;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.membership.MembershipProtocol;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.replica.ReplicaScan;
import io.kvorum.node.replication.CatchUpProtocol;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A transport under test, called one protocol operation at a time as the protocols call it: a
 * method per operation, so that a test reads as what it asks of a peer.
 *
 * @param transport the transport under test
 * @param self the node calling (sent where an operation names its caller)
 */
public record PeerCalls(PeerTransport transport, NodeId self, ClockProtocol.Pings pings)
    implements AutoCloseable {
  public PeerCalls(PeerTransport transport, NodeId self) {
    this(transport, self, new ClockProtocol.Pings(transport));
  }

  public CompletableFuture<Optional<Record>> read(NodeId peer, Key key) {
    return transport.call(peer, ReplicaProtocol.READ, key);
  }

  public CompletableFuture<Void> write(NodeId peer, Key key, Record record) {
    return transport.call(peer, ReplicaProtocol.WRITE, new Entry(key, record));
  }

  public ScanCursor scan(NodeId peer, KeyRange range) {
    return scan(peer, ReplicaScan.of(range));
  }

  public ScanCursor scan(NodeId peer, ReplicaScan scan) {
    return transport.open(peer, ReplicaProtocol.SCAN, scan);
  }

  /** A page of the peer's change log: changes of {@code range} after {@code after}. */
  public CompletableFuture<ChangeLog.Page> changes(
      NodeId peer, KeyRange range, long after, int limit) {
    return changes(peer, List.of(new ChangeLog.Read(range, after, limit)))
        .thenApply(pages -> pages.get(0));
  }

  /** Pages of the peer's change log, one for each of {@code reads}, in one call. */
  public CompletableFuture<List<ChangeLog.Page>> changes(NodeId peer, List<ChangeLog.Read> reads) {
    return transport.call(peer, ChangesProtocol.READ, reads);
  }

  public CompletableFuture<Long> hello(NodeId peer) {
    return transport.call(peer, CatchUpProtocol.HELLO, self);
  }

  /** The peer's wall clock; its storage figures are kept for {@link #reportedStorage}. */
  public CompletableFuture<Long> ping(NodeId peer) {
    return pings.wallClock(peer);
  }

  public Optional<StorageReport> reportedStorage(NodeId peer) {
    return pings.reportedStorage(peer);
  }

  public CompletableFuture<Reply> prepare(NodeId peer, Key key, Ballot ballot) {
    return transport.call(peer, PaxosProtocol.PREPARE, new PaxosProtocol.Prepare(key, ballot));
  }

  public CompletableFuture<Reply> accept(NodeId peer, Key key, Proposal proposal) {
    return transport.call(
        peer, PaxosProtocol.ACCEPT, new PaxosProtocol.Accept(key, proposal, false));
  }

  public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
    return transport.call(
        peer, RepairProtocol.TREE_HASHES, new RepairProtocol.Hashes(self, level, positions));
  }

  public ScanCursor segments(NodeId peer, int[] segments) {
    return transport.open(
        peer, RepairProtocol.SEGMENTS, new RepairProtocol.Segments(self, segments));
  }

  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return transport.call(
        peer, MembershipProtocol.GOSSIP, new MembershipProtocol.Gossip(self, state));
  }

  /**
   * @param to the new replica, or null for any
   */
  public ScanCursor handoff(NodeId peer, long epoch, NodeId to, Key start) {
    return transport.open(
        peer,
        MembershipProtocol.HANDOFF,
        new MembershipProtocol.Handoff(epoch, Optional.ofNullable(to), start));
  }

  public CompletableFuture<ClusterState> join(String host, int port, Member member) {
    return transport.callAt(host, port, MembershipProtocol.JOIN, member);
  }

  public void members(List<Member> members) {
    transport.members(members);
  }

  public PeerTransport.PeerState state(NodeId peer) {
    return transport.state(peer);
  }

  public void onPeerReachable(Consumer<NodeId> listener) {
    transport.onPeerReachable(listener);
  }

  public void peerAnnounced(NodeId peer) {
    transport.peerAnnounced(peer);
  }

  @Override
  public void close() {
    transport.close();
  }
}
