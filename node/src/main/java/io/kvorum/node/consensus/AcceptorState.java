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
   * Promises {@code ballot} if it is above every ballot promised or accepted so far, answering the
   * accepted proposal and the key's ordinary record ({@code stored}) so that the proposer can tell
   * the key's current value.
   */
  public Transition prepare(Ballot ballot, Optional<Record> stored) {
    if (!ballot.isAbove(highest())) {
      return new Transition(this, new Reply.Rejected(ballot, highest()));
    }
    return new Transition(
        new AcceptorState(ballot, accepted), new Reply.Promise(ballot, accepted, stored));
  }

  /**
   * Accepts {@code proposal} unless a higher ballot was promised or accepted; accepting the same
   * proposal again (a duplicated message) answers the same.
   */
  public Transition accept(Proposal proposal) {
    Ballot ballot = proposal.ballot();
    boolean accepted =
        !promised.isAbove(ballot)
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
