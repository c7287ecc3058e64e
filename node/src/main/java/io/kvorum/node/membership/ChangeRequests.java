package io.kvorum.node.membership;

import io.kvorum.node.core.ClusterChangeException;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Zone;
import io.kvorum.node.transport.PeerTransport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests for a membership change (SPEC §8): a new node's to join ({@link #admit}), an
 * operator's for this node's decommission or the removal of a dead member (the abort of its join or
 * move, if it is the one joining or moving and the change's reads have not moved), this node's move
 * to the zone it was restarted in. One change at a time: a request while another change is in
 * progress is refused naming it. Each request returns at once: its future completes on the io
 * thread ({@link Execution#io}) once the new state is stored there, and it is then gossiped to
 * every member; it fails with the reason it was refused ({@link ClusterChangeException}, {@link
 * InvalidRequestException}).
 */
final class ChangeRequests {
  // The lines of the membership service, under its name: operators and tests look for them there.
  private static final Logger log = LoggerFactory.getLogger(MembershipService.class);

  private final Membership membership;
  private final PeerTransport transport;
  private final Execution execution;
  private final LongSupplier wallMillis;
  private final Consumer<ClusterState> gossipWithAll;

  ChangeRequests(
      Membership membership,
      PeerTransport transport,
      Execution execution,
      LongSupplier wallMillis,
      Consumer<ClusterState> gossipWithAll) {
    this.membership = membership;
    this.transport = transport;
    this.execution = execution;
    this.wallMillis = wallMillis;
    this.gossipWithAll = gossipWithAll;
  }

  /** As {@link MembershipService#startDecommission}. */
  CompletableFuture<ClusterState.Change> decommission() {
    if (membership.state().targets().size() < 2) {
      return CompletableFuture.failedFuture(
          new ClusterChangeException(
              ClusterChangeException.Reason.LAST_MEMBER,
              "the last member of the cluster cannot leave it",
              Map.of("node", membership.self().value())));
    }
    return propose(
        membership.self(),
        ClusterState.Kind.DECOMMISSION,
        s -> s.withLeaving(membership.self(), ClusterState.Kind.DECOMMISSION, now()));
  }

  /**
   * Starts this node's move to {@code zone} (SPEC §3: a zone change is a membership change); fails
   * with {@link ClusterChangeException} if another change is in progress.
   */
  CompletableFuture<ClusterState.Change> move(Zone zone) {
    return propose(
        membership.self(),
        ClusterState.Kind.MOVE,
        s -> s.withMoving(membership.self(), zone, now()));
  }

  /** As {@link MembershipService#startRemoval}. */
  CompletableFuture<ClusterState.Change> remove(NodeId node) {
    ClusterState state = membership.state();
    if (state.node(node).isEmpty()) {
      return CompletableFuture.failedFuture(
          new ClusterChangeException(
              ClusterChangeException.Reason.UNKNOWN_NODE,
              "no member '" + node + "'",
              Map.of("node", node.value())));
    }
    if (node.equals(membership.self())) {
      return CompletableFuture.failedFuture(
          new InvalidRequestException(
              "node", "a node cannot remove itself; use POST /v0/cluster/decommission on it"));
    }
    if (transport.state(node).reachable()) {
      return CompletableFuture.failedFuture(
          new ClusterChangeException(
              ClusterChangeException.Reason.NODE_IS_UP,
              "node '" + node + "' is up: decommission it instead (remove is for dead nodes)",
              Map.of("node", node.value())));
    }
    // A member that died for good while it joined or moved would hold the cluster in its change.
    Optional<ClusterState.Change> join =
        state
            .change()
            .filter(c -> c.kind() == ClusterState.Kind.JOIN || c.kind() == ClusterState.Kind.MOVE)
            .filter(c -> c.node().equals(node));
    if (join.isPresent() && join.get().readsMoved()) {
      // Past that point an abort is no longer safe, and the change needs nothing of its node.
      return CompletableFuture.failedFuture(
          inProgress(
              join.get(),
              "the reads of the "
                  + join.get()
                  + " moved: it completes without '"
                  + node
                  + "' (another member drives it); remove '"
                  + node
                  + "' once it has"));
    }
    if (join.isPresent()) {
      return abort(join.get());
    }
    return propose(
        node, ClusterState.Kind.REMOVE, s -> s.withLeaving(node, ClusterState.Kind.REMOVE, now()));
  }

  private CompletableFuture<ClusterState.Change> abort(ClusterState.Change join) {
    return execution
        .onIo(
            () ->
                membership.propose(
                    s -> {
                      if (s.change().equals(Optional.of(join))) {
                        return s.changeAborted();
                      }
                      // The change completed meanwhile: the node is a member to remove.
                      refuseIfChanging(s);
                      return s.withLeaving(join.node(), ClusterState.Kind.REMOVE, now());
                    }))
        .thenApply(
            next -> {
              if (next.change().isPresent()) {
                log.info("started remove of {} at epoch {}", join.node(), next.epoch());
              } else {
                log.warn(
                    "aborted the {} at epoch {}: the cluster keeps its members {}",
                    join,
                    next.epoch(),
                    next.ids());
              }
              gossipWithAll.accept(next);
              return next.change().orElse(join);
            });
  }

  private CompletableFuture<ClusterState.Change> propose(
      NodeId node, ClusterState.Kind kind, UnaryOperator<ClusterState> next) {
    return execution
        .onIo(
            () -> {
              refuseIfChanging(membership.state());
              return membership.propose(next);
            })
        .thenApply(
            proposed -> {
              ClusterState.Change change = proposed.change().orElseThrow();
              log.info("started {} of {} at epoch {}", kind.label(), node, change.epoch());
              gossipWithAll.accept(proposed);
              return change;
            });
  }

  /**
   * A new node asks to join: admitted as joining unless another change is in progress or this node
   * is no normal member (one not admitted itself yet included) (then {@link UnavailableException}),
   * or it is a member already ({@link InvalidRequestException}); asked again while its join is in
   * progress, the state it is joining in. Completes on the io thread.
   */
  CompletableFuture<ClusterState> admit(Member member) {
    return execution.onIo(() -> admitNow(member));
  }

  private ClusterState admitNow(Member member) {
    ClusterState state = membership.state();
    Optional<ClusterState.Change> change = state.change();
    if (change.isPresent()
        && change.get().kind() == ClusterState.Kind.JOIN
        && change.get().node().equals(member.id())) {
      return state;
    }
    if (state.node(member.id()).isPresent()) {
      throw new InvalidRequestException(
          "join",
          "node '"
              + member.id()
              + "' is already a member; a member that lost its data must be removed first");
    }
    if (change.isPresent()) {
      throw new UnavailableException("another change is in progress: " + change.get());
    }
    // Epoch 0 is a node still asking to join, which holds only itself as if normal: admitting
    // another would make a cluster of the two, apart from the one it is joining.
    if (state.epoch() == 0 || state.state(membership.self()).orElse(null) != MemberState.NORMAL) {
      throw new UnavailableException(membership.self() + " is not a normal member");
    }
    log.info("admitting {} as a joining node", member);
    return membership.propose(s -> s.withJoining(member, now()));
  }

  private static void refuseIfChanging(ClusterState state) {
    state
        .change()
        .ifPresent(
            change -> {
              throw inProgress(change, "a membership change is in progress: " + change);
            });
  }

  private static ClusterChangeException inProgress(ClusterState.Change change, String message) {
    Map<String, Object> details = new LinkedHashMap<>(change.describe());
    return new ClusterChangeException(
        ClusterChangeException.Reason.CHANGE_IN_PROGRESS, message, Map.of("change", details));
  }

  private long now() {
    return wallMillis.getAsLong();
  }
}
