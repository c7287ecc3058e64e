package io.kvorum.node.consensus;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.consensus.round.Round;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.topology.Owners;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The rounds of one request, one at a time. Each round takes its acceptors from the membership as
 * it is when the round starts, so a retry during a membership change includes the key's pending
 * replicas as soon as this node knows the change, and a request that outlives the change runs its
 * later rounds on the new owners.
 */
final class PaxosRequest {
  private final Rounds rounds;
  private final Membership membership;
  private final Acceptors paxos;
  private final ConditionalWriteCoordinator.Commit writes;
  private final Clock clock;
  private final RequestDeadline deadline;
  private final PaxosMetrics metrics;
  private final Key key;
  private final ConditionalWrite write;
  private final Quorum quorum;
  private final long deadlineNanos;
  private final List<Proposal> earlier = new ArrayList<>();
  private final Map<NodeId, String> failed = new LinkedHashMap<>();
  private final Set<NodeId> invalid = new LinkedHashSet<>(); // of a release without Paxos
  private final CompletableFuture<Outcome> result = new CompletableFuture<>();
  private final Unfinished unfinished;
  private final Proposers.HandOver handOver;
  private int attempt;
  private int contended;

  /** The acceptors of the current round. */
  private Owners.Participants participants;

  /** What the current round sent in accepts: the value to commit once it is chosen. */
  private Proposal proposal;

  /** The current phase's calls: its failures, typed, decide the answer of an unreachable round. */
  private QuorumCall<Reply> phase;

  /** The current round's accepts, once sent. */
  private Accepts accepts;

  /** Whether an earlier round of this request asked acceptors to store its value. */
  private boolean committing;

  /**
   * Runs when a round ends short of a quorum, before its retry, or once it is handed over: the next
   * request of the key may go ({@link Proposers#inTurn}).
   */
  private volatile Runnable undecided = () -> {};

  /**
   * @param unfinished where a request that fails after its accepts may have stored the value on an
   *     acceptor hands its key, to be finished in the background; null for a request that is such a
   *     finish itself
   * @param deadlineNanos when the request ends, answered or not (504), on the deadline's clock
   * @param handOver where it may go on after a lost round; null to run it here to the end
   */
  PaxosRequest(
      Rounds rounds,
      Key key,
      ConditionalWrite write,
      Quorum quorum,
      Unfinished unfinished,
      long deadlineNanos,
      Proposers.HandOver handOver) {
    this.rounds = rounds;
    this.membership = rounds.membership();
    this.paxos = rounds.acceptors();
    this.writes = rounds.commit();
    this.clock = rounds.clock();
    this.deadline = rounds.deadline();
    this.metrics = rounds.metrics();
    this.deadlineNanos = deadlineNanos;
    this.key = key;
    this.write = write;
    this.quorum = quorum;
    this.unfinished = unfinished;
    this.handOver = handOver;
  }

  /**
   * Runs the rounds until one decides; completes with {@link Outcome.Applied} or {@link
   * Outcome.Refused} once the value is committed, or fails.
   */
  CompletableFuture<Outcome> start() {
    arm();
    round();
    return result;
  }

  /** Starts the request's deadline, before its first round or its hand-over: its result. */
  CompletableFuture<Outcome> arm() {
    long left = deadlineNanos - deadline.nanoTime();
    ScheduledFuture<?> timeout =
        deadline.scheduler().schedule(this::timedOut, left, TimeUnit.NANOSECONDS);
    result.whenComplete(
        (done, error) -> {
          timeout.cancel(false);
          boolean mayBeStored;
          synchronized (this) {
            mayBeStored = committing || (accepts != null && accepts.committing());
          }
          if (error != null && mayBeStored && unfinished != null) {
            unfinished.add(key, quorum);
          }
        });
    return result;
  }

  void whenUndecided(Runnable then) {
    undecided = then;
  }

  /** The request's answer, once {@link #arm}ed. */
  CompletableFuture<Outcome> result() {
    return result;
  }

  private void timedOut() {
    NotEnoughReplicasException timeout;
    synchronized (this) {
      List<NodeId> asked = participants == null ? List.of() : participants.all();
      List<NodeId> silent = asked.stream().filter(n -> !failed.containsKey(n)).toList();
      int required = participants == null ? 0 : participants.required();
      Map<NodeId, String> why = new LinkedHashMap<>(failed);
      if (why.isEmpty() && contended > 0) {
        why.put(
            paxos.self(),
            contended + " rounds lost to other proposers' ballots before the request timeout");
        silent = List.of();
      }
      timeout = new NotEnoughReplicasException(required, 0, why, silent);
    }
    result.completeExceptionally(timeout);
  }

  /** Runs a round, the first once {@link #arm}ed, unless the request has ended (its deadline). */
  void round() {
    if (result.isDone()) {
      return;
    }
    Owners owners = membership.owners();
    Owners.Participants acceptors = owners.participants(key, rounds.group().getAsInt());
    if (acceptors.pending().size() > 1) {
      result.completeExceptionally(Rounds.tooManyPending(owners, acceptors));
      return;
    }
    synchronized (this) {
      participants = acceptors;
      committing |= accepts != null && accepts.committing();
      accepts = null;
    }
    List<NodeId> all = acceptors.all();
    Ballot ballot = new Ballot(clock.now(), paxos.self());
    Round round =
        new Round(
            ballot,
            write,
            all.size(),
            acceptors.required(),
            clock.wallMillis(),
            List.copyOf(earlier));
    metrics.prepare();
    phase(round, acceptors, node -> paxos.prepare(node, key, ballot));
  }

  /** Sends one phase to every acceptor of the round, each answer to the round. */
  private void phase(
      Round round,
      Owners.Participants participants,
      Function<NodeId, CompletableFuture<Reply>> call) {
    QuorumCall<Reply> calls =
        new QuorumCall<>(
            new Quorum(participants.required(), participants.all().size()), participants.all());
    synchronized (this) {
      phase = calls;
    }
    calls.send(
        call,
        (node, reply) -> answered(round, participants, node, reply, null),
        (node, error) -> answered(round, participants, node, null, error));
  }

  private void answered(
      Round round, Owners.Participants acceptors, NodeId node, Reply reply, Throwable error) {
    Round.Step step;
    synchronized (this) {
      if (error != null) {
        Throwable cause = Failures.unwrap(error);
        failed.put(node, String.valueOf(cause.getMessage()));
        if (FailureKind.of(cause) == FailureKind.INVALID_REQUEST) {
          invalid.add(node);
        }
      } else if (accepts != null) {
        accepts.answered(node, reply);
      }
      step = error == null ? round.onReply(node, reply) : round.onFailure(node);
    }
    switch (step) {
      case Round.Step.Wait wait -> {}
      case Round.Step.SendAccept send -> {
        Accepts sent = new Accepts(paxos, key, acceptors, send.proposal());
        synchronized (this) {
          proposal = send.proposal();
          accepts = sent;
        }
        metrics.accept();
        sent.send(call -> phase(round, acceptors, call));
      }
      case Round.Step.Done done -> ended(round, acceptors, done.outcome());
    }
  }

  private void ended(Round round, Owners.Participants acceptors, Outcome outcome) {
    Proposal accepted;
    synchronized (this) {
      accepted = proposal;
      proposal = null;
    }
    switch (outcome) {
      case Outcome.Applied applied -> {
        // Its own write goes to this request's from. A later value that overwrote it (found by a
        // retry, CONDITIONAL seed 1000455) goes to the replicas it was written with, which may be
        // fewer: so the own write goes to this request's from too, where the later value is not
        // already, for a read whose quorum overlaps this write's to see it or something newer
        // (PAXOS_PURGE seed 734: a delete answered at 3 of 3, overwritten by a create at 1 of 1,
        // and a read at 1 of 3 on another replica saw the value from before the delete).
        boolean own = ownWrite(accepted, applied);
        CompletableFuture<Void> committed =
            commit(accepted, own ? quorum.from() : ownReplicas(accepted));
        (own
                ? committed
                : committed.thenCompose(
                    done -> write(applied.written(), ackOf(quorum.from()), quorum.from())))
            .thenRun(() -> result.complete(applied));
      }
      case Outcome.Refused refused ->
          commit(accepted, ownReplicas(accepted)).thenRun(() -> result.complete(refused));
      case Outcome.Contended lost -> {
        synchronized (this) {
          contended++;
        }
        clock.observe(lost.above());
        if (handedOver(round)) {
          undecided.run();
          return;
        }
        metrics.retried(true);
        retry(round);
      }
      case Outcome.Unreachable unreachable -> {
        Optional<Throwable> failure = finalFailure();
        if (failure.isPresent()) {
          result.completeExceptionally(failure.get());
          return;
        }
        metrics.retried(false);
        undecided.run();
        retry(round);
      }
      case Outcome.Indeterminate indeterminate ->
          result.completeExceptionally(
              new NotEnoughReplicasException(
                  acceptors.required(),
                  0,
                  Map.of(
                      paxos.self(),
                      "another proposer overtook this write's round: whether it applied cannot"
                          + " be told"),
                  List.of()));
    }
  }

  /**
   * Makes the chosen value an ordinary record on max({@code ack}, a majority) of the first {@code
   * from} replicas of the key and on their pending ones ({@link WriteCoordinator} adds those, one
   * more confirmation each), so that the new owners hold it when the change completes; a failure
   * fails the request (504).
   *
   * @param from this request's {@code from} for its own write, so that a read whose quorum overlaps
   *     the write's sees it; for a value found and proposed again (a refusal), the replicas it was
   *     written with
   */
  private CompletableFuture<Void> commit(Proposal accepted, int from) {
    Optional<Record> value = accepted == null ? Optional.empty() : accepted.value();
    if (value.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    int ack = ackOf(from);
    Accepts sent;
    QuorumCall<Reply> calls;
    synchronized (this) {
      sent = accepts;
      calls = phase;
    }
    if (sent != null && sent.storedOnceHere(ack, from)) {
      sent.commitTheRest(calls, value.get(), writes, metrics);
      return failOnError(sent.held(paxos.commitHere(key, value.get()), ack, calls));
    }
    return write(value.get(), ack, from);
  }

  /**
   * How many of {@code from} replicas a commit waits for: max(ack, a majority); all of them for a
   * request that outlived a change which shrank the cluster below its ack.
   */
  private int ackOf(int from) {
    return Math.min(Math.max(quorum.ack(), Quorum.majorityOf(from)), from);
  }

  /** Commits {@code value} through the write path to {@code ack} of the first {@code from}. */
  private CompletableFuture<Void> write(Record value, int ack, int from) {
    metrics.commit();
    return failOnError(writes.write(key, value, new Quorum(ack, from)));
  }

  private CompletableFuture<Void> failOnError(CompletableFuture<Void> commit) {
    return commit.whenComplete(
        (ok, error) -> {
          if (error != null) {
            result.completeExceptionally(Failures.unwrap(error));
          }
        });
  }

  private static boolean ownWrite(Proposal accepted, Outcome.Applied applied) {
    return accepted != null && accepted.value().equals(Optional.of(applied.written()));
  }

  /**
   * The replicas a value found and proposed again belongs on: those it was written with (SPEC §3),
   * not this round's, which may be more.
   */
  private int ownReplicas(Proposal accepted) {
    int written = accepted == null ? 1 : accepted.value().map(Record::replicas).orElse(1);
    return Math.min(membership.owners().size(), written);
  }

  /** The failure an unreachable round answers at once ({@link Rounds#finalFailure}). */
  private Optional<Throwable> finalFailure() {
    synchronized (this) {
      return Rounds.finalFailure(participants, invalid, phase);
    }
  }

  /**
   * Whether {@link #handOver} took the request after {@code round} lost (null: before the first
   * round): only while no round of it sent its write in accepts, so nobody can have chosen it.
   */
  boolean handedOver(Round round) {
    return handOver != null
        && earlier.isEmpty()
        && (round == null || round.proposedWrite().isEmpty())
        && handOver.took(key, write, quorum, deadlineNanos, result);
  }

  private void retry(Round round) {
    round.proposedWrite().ifPresent(earlier::add);
    long pause = PaxosBackOff.CURRENT.pauseNanos(++attempt, rounds.random());
    if (deadline.nanoTime() + pause >= deadlineNanos) {
      return; // the timer answers 504 at the deadline
    }
    deadline.scheduler().schedule(this::round, pause, TimeUnit.NANOSECONDS);
  }
}
