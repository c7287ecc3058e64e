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
import io.kvorum.node.core.UnavailableException;
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

/**
 * What a node serves its peers, as one object with a method per operation of every protocol: the
 * shape in which transport tests fake a peer (stalled, failing, full, slow, losing answers: {@link
 * ReplicaServices}), bridged both ways to the handlers a transport serves ({@link #handlers},
 * {@link #of}). An operation a fake leaves out fails "not served here", as the handlers answer one
 * nobody registered.
 */
public interface ServedNode {
  CompletableFuture<Optional<Record>> read(Key key);

  CompletableFuture<Void> write(Key key, Record record);

  /** The writes that arrived together in one message, stored as one batch. */
  default CompletableFuture<Void> writeAll(List<Entry> writes) {
    return CompletableFuture.allOf(
        writes.stream()
            .map(write -> write(write.key(), write.record()))
            .toArray(CompletableFuture[]::new));
  }

  default CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
    return CompletableFuture.failedFuture(notServed("prepare"));
  }

  default CompletableFuture<Reply> accept(Key key, Proposal proposal) {
    return CompletableFuture.failedFuture(notServed("accept"));
  }

  ScanCursor scan(KeyRange range);

  CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions);

  ScanCursor segments(NodeId peer, int[] segments);

  CompletableFuture<Long> hello(NodeId peer);

  default CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return CompletableFuture.failedFuture(notServed("gossip"));
  }

  default CompletableFuture<ClusterState> join(Member member) {
    return CompletableFuture.failedFuture(notServed("join"));
  }

  default ScanCursor handoff(long epoch, NodeId to, Key start) {
    return ScanCursor.failed(notServed("handoff"));
  }

  CompletableFuture<Long> ping();

  default CompletableFuture<List<ChangeLog.Page>> changes(List<ChangeLog.Read> reads) {
    return CompletableFuture.failedFuture(notServed("changes"));
  }

  default Optional<StorageReport> storageReport() {
    return Optional.empty();
  }

  private static UnavailableException notServed(String operation) {
    return new UnavailableException(operation + " is not served here");
  }

  /** {@code node} as the handlers a transport serves: every operation of every protocol. */
  static PeerHandlers handlers(ServedNode node) {
    return new PeerHandlers()
        .on(ReplicaProtocol.READ, node::read)
        .on(ReplicaProtocol.WRITE, write -> node.write(write.key(), write.record()), node::writeAll)
        .on(ReplicaProtocol.SCAN, scan -> scan.paced(node.scan(scan.range())))
        .on(CatchUpProtocol.HELLO, node::hello)
        .on(PaxosProtocol.PREPARE, prepare -> node.prepare(prepare.key(), prepare.ballot()))
        .on(PaxosProtocol.ACCEPT, accept -> node.accept(accept.key(), accept.proposal()))
        .on(
            RepairProtocol.TREE_HASHES,
            ask -> node.treeHashes(ask.from(), ask.level(), ask.positions()))
        .on(RepairProtocol.SEGMENTS, ask -> node.segments(ask.from(), ask.segments()))
        .on(MembershipProtocol.GOSSIP, gossip -> node.gossip(gossip.from(), gossip.state()))
        .on(MembershipProtocol.JOIN, node::join)
        .on(
            MembershipProtocol.HANDOFF,
            handoff -> node.handoff(handoff.epoch(), handoff.to().orElse(null), handoff.start()))
        .on(ChangesProtocol.READ, node::changes)
        .on(
            ClockProtocol.PING,
            ping ->
                node.ping()
                    .thenApply(wall -> new ClockProtocol.PeerTime(wall, node.storageReport())));
  }

  /** What {@code handlers} serve, as one object: a real node's served side, to wrap in a fault. */
  static ServedNode of(PeerHandlers handlers) {
    return new ServedNode() {
      @Override
      public CompletableFuture<Optional<Record>> read(Key key) {
        return handlers.handle(ReplicaProtocol.READ, key);
      }

      @Override
      public CompletableFuture<Void> write(Key key, Record record) {
        return handlers.handle(ReplicaProtocol.WRITE, new Entry(key, record));
      }

      @Override
      public CompletableFuture<Void> writeAll(List<Entry> writes) {
        return handlers.handleAll(ReplicaProtocol.WRITE, writes);
      }

      @Override
      public CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
        return handlers.handle(PaxosProtocol.PREPARE, new PaxosProtocol.Prepare(key, ballot));
      }

      @Override
      public CompletableFuture<Reply> accept(Key key, Proposal proposal) {
        return handlers.handle(
            PaxosProtocol.ACCEPT, new PaxosProtocol.Accept(key, proposal, false));
      }

      @Override
      public ScanCursor scan(KeyRange range) {
        return handlers.open(ReplicaProtocol.SCAN, ReplicaScan.of(range));
      }

      @Override
      public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
        return handlers.handle(
            RepairProtocol.TREE_HASHES, new RepairProtocol.Hashes(peer, level, positions));
      }

      @Override
      public ScanCursor segments(NodeId peer, int[] segments) {
        return handlers.open(RepairProtocol.SEGMENTS, new RepairProtocol.Segments(peer, segments));
      }

      @Override
      public CompletableFuture<Long> hello(NodeId peer) {
        return handlers.handle(CatchUpProtocol.HELLO, peer);
      }

      @Override
      public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
        return handlers.handle(
            MembershipProtocol.GOSSIP, new MembershipProtocol.Gossip(peer, state));
      }

      @Override
      public CompletableFuture<ClusterState> join(Member member) {
        return handlers.handle(MembershipProtocol.JOIN, member);
      }

      @Override
      public ScanCursor handoff(long epoch, NodeId to, Key start) {
        return handlers.open(
            MembershipProtocol.HANDOFF,
            new MembershipProtocol.Handoff(epoch, Optional.ofNullable(to), start));
      }

      @Override
      public CompletableFuture<Long> ping() {
        return handlers
            .handle(ClockProtocol.PING, ClockProtocol.Ping.INSTANCE)
            .thenApply(ClockProtocol.PeerTime::wallMillis);
      }

      @Override
      public CompletableFuture<List<ChangeLog.Page>> changes(List<ChangeLog.Read> reads) {
        return handlers.handle(ChangesProtocol.READ, reads);
      }

      @Override
      public Optional<StorageReport> storageReport() {
        return handlers.handle(ClockProtocol.PING, ClockProtocol.Ping.INSTANCE).join().storage();
      }
    };
  }
}
