package io.kvorum.node.sim.check;

import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.Objects;

/**
 * A proposal some acceptor accepted for a key, durably (its step's write synced): with the others
 * accepted at the same ballot, it tells which proposals a quorum chose.
 *
 * @param key the key
 * @param proposal the proposal accepted
 * @param node the acceptor
 * @param at when, in virtual nanoseconds
 */
public record Acceptance(Key key, Proposal proposal, NodeId node, long at) {
  public Acceptance {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(proposal, "proposal");
    Objects.requireNonNull(node, "node");
  }
}
