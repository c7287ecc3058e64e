package io.kvorum.node.coordinator;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.StreamFigures;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.ReadRepairer;
import io.kvorum.node.replication.Replicas;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What a client request needs from the cluster: versioned writes and deletes, quorum reads that
 * resolve tombstones and expiry, and cluster-wide ranges. Any node coordinates any key.
 */
public final class Coordinator {
  private final Membership membership;
  private final Clock clock;
  private final Replicas replicas;
  private final HintedHandoff handoff;
  private final ClockOffsets offsets;
  private final WriteCoordinator writes;
  private final ReadCoordinator reads;
  private final RangeCoordinator ranges;
  private final AntiEntropy antiEntropy;
  private final int replicationFactor;
  private final MembershipService changes;

  /**
   * @param offsets whether this node's clock may version writes
   * @param requestTimeout how long a request waits for its quorum
   * @param timeoutScheduler called on the thread that starts a request: the scheduler that keeps
   *     its timeout (cheapest on the thread itself when that is an event loop)
   * @param antiEntropy the node's anti-entropy, for its state and for repairs asked for
   * @param replicationFactor copies of a key when a request does not say
   * @param changes the node's membership changes: decommission, removal, streaming figures
   */
  public Coordinator(
      Membership membership,
      Replicas replicas,
      HintedHandoff handoff,
      Clock clock,
      ClockOffsets offsets,
      Duration requestTimeout,
      Supplier<ScheduledExecutorService> timeoutScheduler,
      MeterRegistry registry,
      AntiEntropy antiEntropy,
      int replicationFactor,
      MembershipService changes) {
    this.changes = changes;
    this.membership = membership;
    this.replicationFactor = replicationFactor;
    this.antiEntropy = antiEntropy;
    this.clock = clock;
    this.replicas = replicas;
    this.handoff = handoff;
    this.offsets = offsets;
    Deadline deadline = new Deadline(requestTimeout, timeoutScheduler);
    this.writes = new WriteCoordinator(membership, replicas, handoff, deadline);
    this.reads =
        new ReadCoordinator(membership, replicas, new ReadRepairer(replicas, registry), deadline);
    this.ranges = new RangeCoordinator(membership, replicas, replicationFactor, clock::wallMillis);
  }

  /**
   * The {@code from} of a request that does not say: min(replication factor, cluster size), so
   * clusters of up to three nodes keep a copy on every node by default.
   */
  public int defaultFrom() {
    return Math.min(replicationFactor, clusterSize());
  }

  /** How many members own data now: the largest valid {@code from}. */
  public int clusterSize() {
    return membership.owners().size();
  }

  /** The value of {@code key}, absent if it was never written, was deleted, or has expired. */
  public CompletableFuture<Optional<byte[]>> get(Key key, Quorum quorum) {
    return reads
        .read(key, quorum)
        .thenApply(newest -> newest.filter(r -> r.isLive(clock.wallMillis())).map(Record::value));
  }

  /**
   * Stores {@code value} under {@code key}.
   *
   * @param ttl how long the value lives; {@link Duration#ZERO} for ever
   */
  public CompletableFuture<Void> put(Key key, byte[] value, Duration ttl, Quorum quorum) {
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    Version version = clock.now();
    long expiresAt = ttl.isZero() ? Record.NO_EXPIRY : version.physicalMillis() + ttl.toMillis();
    return writes.write(key, Record.value(version, value, expiresAt, quorum.from()), quorum);
  }

  /** Deletes {@code key}: a tombstone that wins over every earlier write. */
  public CompletableFuture<Void> delete(Key key, Quorum quorum) {
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    return writes.write(key, Record.tombstone(clock.now(), quorum.from()), quorum);
  }

  /** Live entries of {@code range} across the cluster, in key order; close the cursor. */
  public ScanCursor range(KeyRange range) {
    return ranges.range(range);
  }

  /**
   * Why this node does not coordinate writes now (its clock is too far from its peers'), if it does
   * not; reads are served either way.
   */
  public Optional<String> writeRefusal() {
    return offsets.refusal().map(ClockOffsetException::getMessage);
  }

  /** Starts a full anti-entropy round now (or right after the one running). */
  public void repairNow() {
    antiEntropy.repairNow();
  }

  /** Every node as this node sees it now. */
  public List<NodeView> clusterView() {
    ClusterState state = membership.state();
    return state.nodes().stream().map(n -> view(n.member())).toList();
  }

  /**
   * Starts this node's decommission (SPEC §8).
   *
   * @throws io.kvorum.node.core.ClusterChangeException if another change is in progress
   */
  public ClusterState.Change decommission() {
    return changes.decommission();
  }

  /**
   * Starts the removal of {@code node}, a dead member (SPEC §8).
   *
   * @throws io.kvorum.node.core.ClusterChangeException if another change is in progress, the node
   *     is not a member or is up
   * @throws io.kvorum.node.core.InvalidRequestException if it is this node
   */
  public ClusterState.Change remove(NodeId node) {
    return changes.remove(node);
  }

  /** What this node streamed to or from each member during the change in progress. */
  public Map<NodeId, StreamFigures> streaming() {
    return changes.streaming();
  }

  /** The cluster state this node holds: epoch, members and their states, the change. */
  public ClusterState clusterState() {
    return membership.state();
  }

  private NodeView view(Member member) {
    boolean self = replicas.isSelf(member.id());
    PeerTransport.PeerState state = replicas.state(member.id());
    Optional<ClockOffsets.Offset> offset = self ? Optional.empty() : offsets.offset(member.id());
    return new NodeView(
        member.id().value(),
        member.host() + ":" + member.grpcPort(),
        self,
        state.reachable(),
        state.detail(),
        self ? 0 : handoff.pending(member.id()),
        offset.map(o -> OptionalLong.of(o.offsetMillis())).orElse(OptionalLong.empty()),
        offset.map(o -> OptionalLong.of(o.uncertaintyMillis())).orElse(OptionalLong.empty()),
        self ? null : repair(member.id()),
        replicas
            .storage(member.id())
            .map(report -> new NodeView.Storage(report.records(), report.diskBytes()))
            .orElse(null));
  }

  private NodeView.Repair repair(NodeId peer) {
    AntiEntropy.PeerRepair repair = antiEntropy.peer(peer);
    return new NodeView.Repair(
        repair.lastCompletedMillis(),
        repair.recordsRepaired(),
        repair.recordsRepairedTotal(),
        repair.lastError());
  }
}
