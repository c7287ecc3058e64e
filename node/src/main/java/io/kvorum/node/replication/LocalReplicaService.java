package io.kvorum.node.replication;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import io.kvorum.node.transport.ReplicaService.Membership;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What this node does for its peers: its own replicas, the hints it holds for them, its side of
 * their anti-entropy exchanges, its membership, and its Paxos acceptor.
 *
 * <p>A write whose version is further ahead of this node's wall clock than the max clock offset is
 * refused ({@link ClockOffsetException}): its coordinator's clock is ahead, and the version would
 * win over every write the others make until their clocks catch up. Hints and read repair carry
 * versions from the past and pass.
 */
public final class LocalReplicaService implements ReplicaService {
  private final StorageEngine storage;
  private final HintedHandoff handoff;
  private final Clock clock;
  private final long maxOffsetMillis;
  private final AntiEntropy repair;
  private final Membership membership;
  private final Acceptor acceptor;

  /**
   * @param clock this node's clock, whose wall clock versions are checked against
   * @param maxClockOffset how far ahead of it a version may be
   * @param repair this node's anti-entropy, which answers the peers' exchanges
   * @param membership this node's membership, which answers gossip, joins and handoffs
   * @param acceptor this node's Paxos acceptor, which answers prepares and accepts
   */
  public LocalReplicaService(
      StorageEngine storage,
      HintedHandoff handoff,
      Clock clock,
      Duration maxClockOffset,
      AntiEntropy repair,
      Membership membership,
      Acceptor acceptor) {
    this.storage = storage;
    this.handoff = handoff;
    this.clock = clock;
    this.maxOffsetMillis = maxClockOffset.toMillis();
    this.repair = repair;
    this.membership = membership;
    this.acceptor = acceptor;
  }

  @Override
  public CompletableFuture<Optional<Record>> read(Key key) {
    return storage.get(key);
  }

  @Override
  public CompletableFuture<Void> write(Key key, Record record) {
    long wall = clock.wallMillis();
    return tooFarAhead(record, wall)
        ? CompletableFuture.failedFuture(refusal(record, wall))
        : storage.put(key, record);
  }

  /** Stores the writes that are not too far ahead; fails all if one was (see the contract). */
  @Override
  public CompletableFuture<Void> writeAll(List<Entry> writes) {
    long wall = clock.wallMillis();
    List<Entry> accepted = writes.stream().filter(w -> !tooFarAhead(w.record(), wall)).toList();
    if (accepted.size() == writes.size()) {
      return storage.putAll(writes);
    }
    Record refused =
        writes.stream()
            .map(Entry::record)
            .filter(r -> tooFarAhead(r, wall))
            .findFirst()
            .orElseThrow();
    CompletableFuture<Void> stored =
        accepted.isEmpty() ? CompletableFuture.completedFuture(null) : storage.putAll(accepted);
    return stored.thenCompose(ok -> CompletableFuture.failedFuture(refusal(refused, wall)));
  }

  @Override
  public CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
    return acceptor.prepare(key, ballot);
  }

  /** Refuses a proposal versioned too far ahead, as {@link #write} refuses its commit would be. */
  @Override
  public CompletableFuture<Reply> accept(Key key, Proposal proposal) {
    long wall = clock.wallMillis();
    Optional<Record> ahead = proposal.value().filter(r -> tooFarAhead(r, wall));
    return ahead.isPresent()
        ? CompletableFuture.failedFuture(refusal(ahead.get(), wall))
        : acceptor.accept(key, proposal);
  }

  private boolean tooFarAhead(Record record, long wall) {
    return record.version().physicalMillis() - wall > maxOffsetMillis;
  }

  private ClockOffsetException refusal(Record record, long wall) {
    long ahead = record.version().physicalMillis() - wall;
    return new ClockOffsetException(
        "the write's version is "
            + ahead
            + " ms ahead of this replica's wall clock, more than the max clock offset of "
            + maxOffsetMillis
            + " ms: the coordinator's clock is ahead",
        ahead,
        maxOffsetMillis);
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

  @Override
  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    return membership.gossip(peer, state);
  }

  @Override
  public CompletableFuture<ClusterState> join(Member member) {
    return membership.admit(member);
  }

  @Override
  public ScanCursor handoff(long epoch, NodeId to, Key start) {
    return membership.handoff(epoch, to, start);
  }

  @Override
  public CompletableFuture<Long> ping() {
    return CompletableFuture.completedFuture(clock.wallMillis());
  }

  @Override
  public Optional<PeerTransport.StorageReport> storageReport() {
    return Replicas.storageReport(storage);
  }
}
