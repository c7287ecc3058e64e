package io.kvorum.node.membership;

import io.kvorum.node.core.ClusterChangeException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Zone;
import io.kvorum.node.transport.PeerTransport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's requests for a membership change (SPEC §8): this node's decommission, its move to
 * the zone it was restarted in, or the removal of a dead member (the abort of its join or move, if
 * it is the one joining or moving). One change at a time: a request while another change is in
 * progress is refused naming it. Proposals run on the service's "kvorum-membership-io" thread,
 * which writes the state file; the new state is then gossiped to every member.
 */
final class ChangeRequests {
  // The lines of the membership service, under its name: operators and tests look for them there.
  private static final Logger log = LoggerFactory.getLogger(MembershipService.class);

  private final Membership membership;
  private final PeerTransport transport;
  private final Executor io;
  private final LongSupplier wallMillis;
  private final Consumer<ClusterState> gossipWithAll;

  ChangeRequests(
      Membership membership,
      PeerTransport transport,
      Executor io,
      LongSupplier wallMillis,
      Consumer<ClusterState> gossipWithAll) {
    this.membership = membership;
    this.transport = transport;
    this.io = io;
    this.wallMillis = wallMillis;
    this.gossipWithAll = gossipWithAll;
  }

  /** As {@link MembershipService#decommission}. */
  ClusterState.Change decommission() {
    if (membership.state().targets().size() < 2) {
      throw new ClusterChangeException(
          ClusterChangeException.Reason.LAST_MEMBER,
          "the last member of the cluster cannot leave it",
          Map.of("node", membership.self().value()));
    }
    return propose(
        membership.self(),
        ClusterState.Kind.DECOMMISSION,
        s -> s.withLeaving(membership.self(), ClusterState.Kind.DECOMMISSION, now()));
  }

  /**
   * Starts this node's move to {@code zone} (SPEC §3: a zone change is a membership change).
   *
   * @throws io.kvorum.node.core.ClusterChangeException if another change is in progress
   */
  ClusterState.Change move(Zone zone) {
    return propose(
        membership.self(),
        ClusterState.Kind.MOVE,
        s -> s.withMoving(membership.self(), zone, now()));
  }

  /** As {@link MembershipService#remove}. */
  ClusterState.Change remove(NodeId node) {
    ClusterState state = membership.state();
    if (state.node(node).isEmpty()) {
      throw new ClusterChangeException(
          ClusterChangeException.Reason.UNKNOWN_NODE,
          "no member '" + node + "'",
          Map.of("node", node.value()));
    }
    if (node.equals(membership.self())) {
      throw new InvalidRequestException(
          "node", "a node cannot remove itself; use POST /v0/cluster/decommission on it");
    }
    if (transport.state(node).reachable()) {
      throw new ClusterChangeException(
          ClusterChangeException.Reason.NODE_IS_UP,
          "node '" + node + "' is up: decommission it instead (remove is for dead nodes)",
          Map.of("node", node.value()));
    }
    // A member that died for good while it joined or moved would hold the cluster in its change.
    Optional<ClusterState.Change> join =
        state
            .change()
            .filter(c -> c.kind() == ClusterState.Kind.JOIN || c.kind() == ClusterState.Kind.MOVE)
            .filter(c -> c.node().equals(node));
    if (join.isPresent()) {
      return abort(join.get());
    }
    return propose(
        node, ClusterState.Kind.REMOVE, s -> s.withLeaving(node, ClusterState.Kind.REMOVE, now()));
  }

  private ClusterState.Change abort(ClusterState.Change join) {
    try {
      ClusterState next =
          CompletableFuture.supplyAsync(
                  () ->
                      membership.propose(
                          s -> {
                            if (s.change().equals(Optional.of(join))) {
                              return s.changeAborted();
                            }
                            // The change completed meanwhile: the node is a member to remove.
                            refuseIfChanging(s);
                            return s.withLeaving(join.node(), ClusterState.Kind.REMOVE, now());
                          }),
                  io)
              .join();
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
    } catch (CompletionException e) {
      throw Failures.unwrap(e) instanceof RuntimeException r ? r : e;
    }
  }

  private ClusterState.Change propose(
      NodeId node, ClusterState.Kind kind, UnaryOperator<ClusterState> next) {
    try {
      ClusterState proposed =
          CompletableFuture.supplyAsync(
                  () -> {
                    refuseIfChanging(membership.state());
                    return membership.propose(next);
                  },
                  io)
              .join();
      ClusterState.Change change = proposed.change().orElseThrow();
      log.info("started {} of {} at epoch {}", kind.label(), node, change.epoch());
      gossipWithAll.accept(proposed);
      return change;
    } catch (CompletionException e) {
      throw Failures.unwrap(e) instanceof RuntimeException r ? r : e;
    }
  }

  private static void refuseIfChanging(ClusterState state) {
    state
        .change()
        .ifPresent(
            change -> {
              Map<String, Object> details = new LinkedHashMap<>(change.describe());
              throw new ClusterChangeException(
                  ClusterChangeException.Reason.CHANGE_IN_PROGRESS,
                  "a membership change is in progress: " + change,
                  Map.of("change", details));
            });
  }

  private long now() {
    return wallMillis.getAsLong();
  }
}
