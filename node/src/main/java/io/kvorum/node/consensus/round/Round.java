package io.kvorum.node.consensus.round;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One proposer's round of single-decree Paxos for one key, as a pure state machine: the caller
 * sends a prepare at {@link #ballot()} to every acceptor, feeds each answer (or a failure to
 * answer) in, and does what the returned {@link Step} says: nothing yet, send the accept to every
 * acceptor, or stop with an outcome. Answers for another ballot, duplicates and answers after the
 * end are ignored.
 *
 * <p>The key's current value is the newest (last-writer-wins) of the highest-ballot proposal among
 * the promises and the ordinary records the promising acceptors hold, so a plain write newer than
 * every conditional one is seen. If the condition holds, the round proposes the write, versioned at
 * its ballot; if not, it proposes the current value again unchanged, which finishes any round a
 * proposer left half done and makes the refusal linearizable. A current value already settled on a
 * quorum (committed on every acceptor that answered the prepare, refusals included, nothing newer
 * accepted) is refused at once, without accepts ({@link #observe}). A linearizable read is a round
 * whose condition never holds ({@link Condition.Never}).
 *
 * <p>A write retried after an earlier round of it sent accepts and then lost to another proposer
 * names those earlier proposals: one of them may have been chosen since, finished by a later
 * proposer. If the current value is one of them, or was computed from one of them, the write
 * applied; if the key is still at the value they were computed from (and the condition holds), or
 * the current value was computed from that same value as they were, none was chosen before it, and
 * once this round is accepted none can be; otherwise the write may have applied and been
 * overwritten since (even if its condition holds again: a value written if absent, then deleted),
 * and the round says it cannot tell rather than refuse or apply the write twice. Not thread-safe.
 */
public final class Round {
  /** What the caller does next. */
  public sealed interface Step {
    /** Wait for more answers. */
    record Wait() implements Step {}

    /** Send this proposal to every acceptor in an accept message. */
    record SendAccept(Proposal proposal) implements Step {}

    /** The round is over. */
    record Done(Outcome outcome) implements Step {}
  }

  private static final Step WAIT = new Step.Wait();

  private final Ballot ballot;
  private final ConditionalWrite write;
  private final int acceptors;
  private final int quorum;
  private final long nowMillis;
  private final List<Proposal> earlier;
  private final Set<NodeId> promised = new HashSet<>();
  private final Set<NodeId> accepted = new HashSet<>();
  private final Set<NodeId> failed = new HashSet<>();
  private final Map<NodeId, Reply.Held> seen = new HashMap<>();
  private Proposal highest;
  private Record newestStored;
  private Ballot rejectedBy = Ballot.NONE;
  private Proposal proposal;
  private Outcome outcome;
  private Proposal newWrite;
  private boolean done;

  /**
   * @param acceptors how many acceptors the prepare goes to
   * @param quorum how many must promise, then accept: a majority of {@code acceptors}
   * @param nowMillis the wall clock when the round starts, for expiry
   * @param earlier the proposals earlier rounds of this same write sent in accepts without learning
   *     whether they were chosen
   */
  public Round(
      Ballot ballot,
      ConditionalWrite write,
      int acceptors,
      int quorum,
      long nowMillis,
      List<Proposal> earlier) {
    if (quorum <= acceptors / 2 || quorum > acceptors) {
      throw new IllegalArgumentException(
          "a quorum of " + acceptors + " acceptors is a majority, not " + quorum);
    }
    this.ballot = ballot;
    this.write = write;
    this.acceptors = acceptors;
    this.quorum = quorum;
    this.nowMillis = nowMillis;
    this.earlier = List.copyOf(earlier);
  }

  public Ballot ballot() {
    return ballot;
  }

  /**
   * The record of the write itself once this round has sent it in accepts: if the round then ends
   * without an answer, a retry must name it among the earlier records.
   */
  public Optional<Proposal> proposedWrite() {
    return Optional.ofNullable(newWrite);
  }

  public boolean isDone() {
    return done;
  }

  /** An acceptor's answer. */
  public Step onReply(NodeId acceptor, Reply reply) {
    if (done || !reply.ballot().equals(ballot) || failed.contains(acceptor)) {
      return WAIT;
    }
    return switch (reply) {
      case Reply.Promise promise -> onPromise(acceptor, promise);
      case Reply.Accepted ignored -> onAccepted(acceptor);
      case Reply.Rejected rejected -> onRejected(acceptor, rejected);
    };
  }

  /** An acceptor that will not answer this round (no connection, a deadline passed). */
  public Step onFailure(NodeId acceptor) {
    if (done || (proposal == null ? promised : accepted).contains(acceptor)) {
      return WAIT;
    }
    failed.add(acceptor);
    return checkReachable();
  }

  private Step onPromise(NodeId acceptor, Reply.Promise promise) {
    if (proposal != null || !promised.add(acceptor)) {
      return WAIT;
    }
    promise
        .accepted()
        .filter(a -> highest == null || a.ballot().isAbove(highest.ballot()))
        .ifPresent(a -> highest = a);
    promise.stored().ifPresent(r -> newestStored = Record.newest(newestStored, r));
    Optional<Outcome> settled = observe(acceptor, promise.accepted(), promise.stored());
    if (settled.isPresent()) {
      return finish(settled.get());
    }
    if (promised.size() < quorum) {
      return WAIT;
    }
    Record current =
        Record.newest(highest == null ? null : highest.value().orElse(null), newestStored);
    Optional<Record> state = Optional.ofNullable(current);
    Optional<Version> parent =
        highest != null && highest.value().equals(state) ? highest.parent() : Optional.empty();
    Optional<Proposal> mine =
        earlier.stream()
            .filter(e -> e.value().equals(state) || parent.equals(e.value().map(Record::version)))
            .findFirst();
    if (mine.isPresent()) {
      proposal = new Proposal(ballot, state, parent);
      outcome = new Outcome.Applied(mine.get().value().orElseThrow());
    } else if (write.condition().holds(state, nowMillis)) {
      if (!unchangedSinceEarlier(state)) {
        // An earlier round of this write may have been chosen and overwritten since, the
        // condition holding again (a value written if absent, then deleted): writing it again
        // would apply it twice.
        return finish(new Outcome.Indeterminate());
      }
      if (current != null && current.version().compareTo(ballot.version()) >= 0) {
        return finish(new Outcome.Contended(current.version()));
      }
      Record written = write.at(ballot.version());
      proposal =
          new Proposal(
              ballot,
              Optional.of(written),
              Optional.of(state.map(Record::version).orElse(Version.ZERO)));
      newWrite = proposal;
      outcome = new Outcome.Applied(written);
    } else if (earlier.stream().allMatch(e -> parent.isPresent() && e.parent().equals(parent))) {
      proposal = new Proposal(ballot, state, parent);
      outcome = new Outcome.Refused(state);
    } else {
      return finish(new Outcome.Indeterminate());
    }
    failed.clear();
    return new Step.SendAccept(proposal);
  }

  /**
   * Whether the key is at the value every earlier round of this write was computed from: then none
   * of them was chosen (a chosen one, or anything written after it, would be the current value or
   * newer, its record never purged below it), and this round may write. With no earlier round,
   * trivially.
   */
  private boolean unchangedSinceEarlier(Optional<Record> state) {
    Optional<Version> now = Optional.of(state.map(Record::version).orElse(Version.ZERO));
    return earlier.stream().allMatch(e -> e.parent().equals(now));
  }

  private Step onAccepted(NodeId acceptor) {
    if (proposal == null || !accepted.add(acceptor)) {
      return WAIT;
    }
    return accepted.size() >= quorum ? finish(outcome) : WAIT;
  }

  private Step onRejected(NodeId acceptor, Reply.Rejected rejected) {
    if (rejected.higher().isAbove(rejectedBy)) {
      rejectedBy = rejected.higher();
    }
    failed.add(acceptor);
    if (proposal == null && rejected.held().isPresent()) {
      Reply.Held held = rejected.held().get();
      Optional<Outcome> settled = observe(acceptor, held.accepted(), held.stored());
      if (settled.isPresent()) {
        return finish(settled.get());
      }
    }
    return checkReachable();
  }

  /**
   * Takes what an acceptor holds from its answer to the prepare (a promise or a refusal), and
   * answers a refusal at once if the answers of a quorum show a settled current value that fails
   * the condition.
   *
   * <p>Settled: every acceptor that answered holds the newest value any of them holds as its
   * ordinary record, none older, and none has accepted a proposal newer than it. Then that value
   * was the key's value while they answered: it was committed (or written plainly) before the first
   * of those answers, and a newer value chosen before then would have been accepted by one of them
   * (any two quorums meet), which would hold it or a newer one still. A majority of the acceptors
   * hold it as a record, so every later round, and a quorum read, finds it or something newer;
   * proposing it again would change nothing. So a refusal needs neither this round's promises nor
   * its accepts: a writer that lost a race learns the winner's value from the answers to its
   * prepare, even those refusing its ballot, instead of contending for a round of its own. An
   * accepted proposal newer than the records (possibly chosen, not yet committed) leaves the value
   * unsettled, and the round decides as before.
   */
  private Optional<Outcome> observe(
      NodeId acceptor, Optional<Proposal> accepted, Optional<Record> stored) {
    seen.put(acceptor, new Reply.Held(accepted, stored));
    if (seen.size() < quorum) {
      return Optional.empty();
    }
    Record current = null;
    Proposal top = null;
    for (Reply.Held held : seen.values()) {
      current = Record.newest(current, held.stored().orElse(null));
      Optional<Proposal> proposed = held.accepted();
      if (proposed.isPresent()) {
        current = Record.newest(current, proposed.get().value().orElse(null));
        if (top == null || proposed.get().ballot().isAbove(top.ballot())) {
          top = proposed.get();
        }
      }
    }
    Record newest = current;
    boolean settled =
        seen.values().stream()
            .allMatch(
                h ->
                    newest == null
                        ? h.stored().isEmpty()
                        : h.stored().filter(r -> !newest.supersedes(r)).isPresent());
    Optional<Record> state = Optional.ofNullable(current);
    if (!settled || write.condition().holds(state, nowMillis)) {
      return Optional.empty();
    }
    Optional<Version> parent =
        top != null && top.value().equals(state) ? top.parent() : Optional.empty();
    boolean mine =
        earlier.stream()
            .anyMatch(
                e -> e.value().equals(state) || parent.equals(e.value().map(Record::version)));
    boolean unchosen =
        earlier.stream().allMatch(e -> parent.isPresent() && e.parent().equals(parent));
    // A retry that finds its own write, or cannot tell, is decided by the promises, as before.
    return !mine && unchosen ? Optional.of(new Outcome.Refused(state)) : Optional.empty();
  }

  private Step checkReachable() {
    int answered = (proposal == null ? promised : accepted).size();
    if (answered + (acceptors - answered - failed.size()) >= quorum) {
      return WAIT;
    }
    if (rejectedBy != Ballot.NONE) {
      return finish(new Outcome.Contended(rejectedBy.version()));
    }
    return finish(new Outcome.Unreachable(answered, quorum));
  }

  private Step finish(Outcome result) {
    done = true;
    return new Step.Done(result);
  }
}
