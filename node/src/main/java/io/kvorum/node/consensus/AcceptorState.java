package io.kvorum.node.consensus;

import io.kvorum.node.core.Record;
import java.util.Optional;

/**
 * What an acceptor keeps for one key, and must keep durably before it answers: the highest ballot
 * it promised and the last proposal it accepted. Transitions are pure; the caller stores the new
 * state, then sends the reply.
 */
public record AcceptorState(Ballot promised, Optional<Proposal> accepted) {
  /** The state of a key no proposer has touched. */
  public static final AcceptorState EMPTY = new AcceptorState(Ballot.NONE, Optional.empty());

  /** A new state (possibly this one) and the answer to send. */
  public record Transition(AcceptorState state, Reply reply) {}

  /**
   * Promises {@code ballot} if its timestamp is above that of every ballot promised or accepted so
   * far, answering the accepted proposal and the key's ordinary record ({@code stored}) so that the
   * proposer can tell the key's current value.
   *
   * <p>A higher ballot with the same timestamp (another proposer's, whose clock gave the same
   * stamp) is refused too: any two quorums share an acceptor, so at most one ballot of each
   * timestamp ever gathers a quorum of promises, and the values proposed (versioned with their
   * ballot's timestamp) never share a version. Otherwise two proposers could propose the same value
   * at the same version, and the one whose round lost would take the other's for its own.
   */
  public Transition prepare(Ballot ballot, Optional<Record> stored) {
    if (ballot.version().compareTo(highest().version()) <= 0) {
      return new Transition(this, new Reply.Rejected(ballot, highest()));
    }
    return new Transition(
        new AcceptorState(ballot, accepted), new Reply.Promise(ballot, accepted, stored));
  }

  /**
   * Accepts {@code proposal} unless a higher ballot was promised or accepted, or another ballot of
   * the same timestamp was promised (see {@link #prepare}); accepting the same proposal again (a
   * duplicated message) answers the same.
   */
  public Transition accept(Proposal proposal) {
    Ballot ballot = proposal.ballot();
    boolean accepted =
        !promised.isAbove(ballot)
            && (ballot.equals(promised) || ballot.version().compareTo(promised.version()) > 0)
            && this.accepted.map(a -> !a.ballot().isAbove(ballot)).orElse(true);
    if (!accepted) {
      return new Transition(this, new Reply.Rejected(ballot, highest()));
    }
    return new Transition(
        new AcceptorState(ballot, Optional.of(proposal)), new Reply.Accepted(ballot));
  }

  private Ballot highest() {
    Ballot accepted = this.accepted.map(Proposal::ballot).orElse(Ballot.NONE);
    return accepted.isAbove(promised) ? accepted : promised;
  }
}
