package io.kvorum.node.membership;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import java.util.Optional;

/**
 * The membership protocol (SPEC §8): members gossip their cluster states until they agree, a new
 * node asks a member to admit it, and during a change the new owners pull the records they gain
 * from the old ones. Its operations and its handler ({@link #serve}); {@link MembershipService} and
 * {@link ChangeDriver} call them.
 */
public final class MembershipProtocol {
  /**
   * Gives a peer the asking node's cluster state; answers the peer's after it considered it (the
   * newer of the two). Not guarded: it goes to every member each second whether it is up or not,
   * and its failures must not open the breaker that client requests go through.
   */
  public static final Operation<Gossip, ClusterState> GOSSIP =
      Operation.<Gossip, ClusterState>of("gossip").unguarded();

  /**
   * Asks a member (not a peer yet: {@link io.kvorum.node.transport.PeerTransport#callAt}) to admit
   * the asking node as joining; answers the cluster state in which it is. Waits up to the catch-up
   * timeout.
   */
  public static final Operation<Member, ClusterState> JOIN =
      Operation.<Member, ClusterState>of("join").within(Deadline.CATCH_UP).unguarded();

  /**
   * A peer's records from a key that the change of an epoch gives a new replica (one named, or any)
   * and that the peer is the one to hand off ({@link
   * io.kvorum.node.topology.Owners#handoffSource}), in key order. Each batch may take long: the
   * peer passes over the records it does not hand off.
   */
  public static final CursorOperation<Handoff> HANDOFF =
      new CursorOperation<>("handoff", Deadline.LONG_BATCH);

  private MembershipProtocol() {}

  /** A gossip: {@code from}'s cluster state. */
  public record Gossip(NodeId from, ClusterState state) {}

  /**
   * A hand-off asked for.
   *
   * @param to the new replica the records are for; empty for every new replica
   */
  public record Handoff(long epoch, Optional<NodeId> to, Key start) {}

  /**
   * Serves {@code service}'s side of the membership to the peers: it answers gossip, admits joining
   * nodes (unavailable while another change is in progress), and hands off the records of the
   * change in progress (an invalid request unless that change is in progress here).
   */
  public static void serve(PeerHandlers handlers, MembershipService service) {
    handlers
        .on(GOSSIP, gossip -> service.gossip(gossip.from(), gossip.state()))
        .on(JOIN, service::admit)
        .on(
            HANDOFF,
            handoff ->
                service.handoff(handoff.epoch(), handoff.to().orElse(null), handoff.start()));
  }
}
