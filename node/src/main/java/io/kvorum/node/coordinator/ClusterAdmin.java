package io.kvorum.node.coordinator;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.StreamFigures;
import io.kvorum.node.transport.PeerTransport;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What an operator asks of the cluster through this node: the cluster as this node sees it (every
 * member up or down, the hints, clock offsets, repairs and storage figures of each), membership
 * changes (decommission, removal), a repair now, and whether this node may coordinate writes. The
 * data operations are {@link Coordinator}'s.
 */
public final class ClusterAdmin {
  private final Membership membership;
  private final Replicas replicas;
  private final Function<NodeId, Optional<StorageReport>> storage;
  private final HintedHandoff handoff;
  private final ClockOffsets offsets;
  private final AntiEntropy antiEntropy;
  private final MembershipService changes;

  /**
   * @param storage a member's storage figures: this node's own now, a peer's as it reported them in
   *     its latest answer to a ping; empty when unknown
   * @param offsets whether this node's clock may version writes, and the peers' offsets
   * @param antiEntropy the node's anti-entropy, for its state and for repairs asked for
   * @param changes the node's membership changes: decommission, removal, streaming figures
   */
  public ClusterAdmin(
      Membership membership,
      Replicas replicas,
      Function<NodeId, Optional<StorageReport>> storage,
      HintedHandoff handoff,
      ClockOffsets offsets,
      AntiEntropy antiEntropy,
      MembershipService changes) {
    this.membership = membership;
    this.replicas = replicas;
    this.storage = storage;
    this.handoff = handoff;
    this.offsets = offsets;
    this.antiEntropy = antiEntropy;
    this.changes = changes;
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
   * Starts this node's decommission (SPEC §8): completes once the change is stored, failed with
   * {@link io.kvorum.node.core.ClusterChangeException} if another change is in progress.
   */
  public CompletableFuture<ClusterState.Change> decommission() {
    return changes.startDecommission();
  }

  /**
   * Starts the removal of {@code node}, a dead member (SPEC §8): completes once the change is
   * stored, failed with {@link io.kvorum.node.core.ClusterChangeException} if another change is in
   * progress, the node is not a member or is up, or {@link
   * io.kvorum.node.core.InvalidRequestException} if it is this node.
   */
  public CompletableFuture<ClusterState.Change> remove(NodeId node) {
    return changes.startRemoval(node);
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
        storage
            .apply(member.id())
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
