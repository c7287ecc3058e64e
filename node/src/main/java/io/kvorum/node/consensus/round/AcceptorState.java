package io.kvorum.node.consensus.round;

import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
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
   * at the same version, and the one whose round lost would take the other's for its own. A refusal
   * says what this acceptor holds all the same ({@link Reply.Held}).
   */
  public Transition prepare(Ballot ballot, Optional<Record> stored) {
    if (ballot.version().compareTo(highest().version()) <= 0) {
      return new Transition(
          this,
          new Reply.Rejected(ballot, highest(), Optional.of(new Reply.Held(accepted, stored))));
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

  /**
   * This state as an acceptor whose ballot floor is {@code floor} sees it: every ballot whose
   * timestamp is not above the floor is refused, as if a ballot at the floor had been promised (a
   * node raises its floor before it purges states whose ballots are all below it, so a purged state
   * refuses no less than it did). A transition that refuses leaves this view as it was.
   */
  public AcceptorState floored(Version floor) {
    if (promised.version().compareTo(floor) > 0) {
      return this;
    }
    return new AcceptorState(new Ballot(floor, Ballot.NONE.proposer()), accepted);
  }

  /**
   * Whether this state may be forgotten once the acceptor's floor is {@code floor}, given the key's
   * ordinary record on this node ({@code stored}, which every promise carries): every ballot it
   * holds is at or below the floor, and an accepted proposal is superseded here, that is the stored
   * record is at least as new as its value (applied) <em>and</em> versioned at or above its ballot.
   *
   * <p>The second half is what makes forgetting safe. The accepted proposal with the highest ballot
   * masks, in a round's view, every lower-ballot proposal some other acceptor accepted but that was
   * never chosen. A value proposed at a ballot is versioned at most at that ballot's timestamp (a
   * new write at it, or an older value proposed again), so a stored record versioned at or above
   * the forgotten ballot still masks them all, by last-writer-wins; a value proposed again (after a
   * 412) is versioned below its ballot, and its state stays until a newer write reaches this node.
   * The reasoning in full is in docs/decisions/paxos-state-purged-below-a-ballot-floor.md.
   */
  public boolean purgeable(Version floor, Optional<Record> stored) {
    if (promised.version().compareTo(floor) > 0) {
      return false;
    }
    if (accepted.isEmpty()) {
      return true;
    }
    Proposal proposal = accepted.get();
    Version ballot = proposal.ballot().version();
    return ballot.compareTo(floor) <= 0
        && stored
            .filter(
                s -> PlantedBug.UNSAFE_PAXOS_PURGE.planted() || s.version().compareTo(ballot) >= 0)
            .filter(s -> proposal.value().map(v -> !v.supersedes(s)).orElse(true))
            .isPresent();
  }

  private Ballot highest() {
    Ballot accepted = this.accepted.map(Proposal::ballot).orElse(Ballot.NONE);
    return accepted.isAbove(promised) ? accepted : promised;
  }
}
