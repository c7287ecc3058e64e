package io.kvorum.node.consensus;

import io.github.resilience4j.core.IntervalFunction;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.consensus.round.Round;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.topology.Owners;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * Decides a conditional write (SPEC §10) with single-decree Paxos over the key's {@code from}
 * replicas, a majority of them answering ({@link Round}), and during a membership change over those
 * and the replica the key gains, with one more answer for it ({@link Owners#participants},
 * Cassandra's rule); commits the chosen value as an ordinary record through the plain write path
 * ({@link Commit}), so plain reads, ranges, read repair, hints and anti-entropy see it, the new
 * owners included; an accepted value that is not committed yet is seen only by the next round,
 * never by a plain read.
 *
 * <p>Each phase goes to the acceptors as a plain write goes to its replicas ({@link QuorumCall}),
 * within the same request deadline ({@link RequestDeadline}). A round that loses to another
 * proposer's ballot is retried after a jittered, exponentially growing pause (Resilience4j's {@link
 * IntervalFunction}, jittered from the given randomness), with a ballot above the one it lost to,
 * for as long as the request timeout allows; then, and when a round cannot tell whether an earlier
 * round of the same write was chosen, the write fails as a timeout does (504: it may or may not
 * have applied). A round that too many acceptors failed is answered as a plain write would be, by
 * the failure table ({@link FailureKind}): failures not worth retrying that the acceptors share (a
 * full disk: 507) at once, the others retried. A refusal (412) is answered only after a quorum
 * accepted the current value again and it was committed, so it is as linearizable as a success.
 */
public final class ConditionalWriteCoordinator {
  /** Exponential from 2 ms to 100 ms; each pause jittered to between half and one and a half. */
  private static final IntervalFunction BACK_OFF =
      IntervalFunction.ofExponentialBackoff(2, 2.0, 100);

  private static final double JITTER = 0.5;

  private final Membership membership;
  private final Acceptors paxos;
  private final Commit writes;
  private final Clock clock;
  private final RequestDeadline deadline;
  private final DoubleSupplier random;
  private final IntSupplier group;
  private final PaxosMetrics metrics;

  /** How a chosen value becomes an ordinary record: the plain write path. */
  @FunctionalInterface
  public interface Commit {
    /** Writes {@code record} to {@code quorum} of {@code key}'s replicas. */
    CompletableFuture<Void> write(Key key, Record record, Quorum quorum);
  }

  /**
   * @param commit writes a chosen value as an ordinary record
   * @param deadline the request deadline of plain writes, and its timers
   * @param random uniform in [0, 1): the jitter of the back-off between rounds (seeded in a
   *     simulation)
   * @param group how many of a key's replicas decide its conditional writes, whatever {@code from}
   *     a request asks: the default {@code from}, so that every round of a key, whatever its {@code
   *     from}, has its majority among the same nodes
   *     (docs/decisions/conditional-writes-are-decided-by-the-default-replicas.md)
   */
  public ConditionalWriteCoordinator(
      Membership membership,
      Acceptors acceptors,
      Commit commit,
      Clock clock,
      RequestDeadline deadline,
      DoubleSupplier random,
      IntSupplier group,
      MeterRegistry registry) {
    this.membership = membership;
    this.group = group;
    this.paxos = acceptors;
    this.writes = commit;
    this.clock = clock;
    this.deadline = deadline;
    this.random = random;
    this.metrics = new PaxosMetrics(registry);
  }

  /**
   * Applies {@code write} to {@code key} if its condition holds.
   *
   * @return the record written; fails with {@link ConditionFailedException} if the condition does
   *     not hold, {@link NotEnoughReplicasException} if it could not be decided in time, {@link
   *     UnavailableException} if the key gains more than one replica by the membership change in
   *     progress (nothing was sent)
   */
  public CompletableFuture<Record> write(Key key, ConditionalWrite write, Quorum quorum) {
    Attempts attempts =
        new Attempts(
            key,
            write,
            quorum,
            deadline.scheduler(),
            deadline.nanoTime() + deadline.timeout().toNanos());
    attempts.start();
    // Counted before the caller sees the answer, so a client that saw it finds it counted.
    return attempts.result.whenComplete((written, error) -> metrics.ended(error));
  }

  /**
   * The rounds of one request, one at a time. Each round takes its acceptors from the membership as
   * it is when the round starts, so a retry during a membership change includes the key's pending
   * replicas as soon as this node knows the change, and a request that outlives the change runs its
   * later rounds on the new owners.
   */
  private final class Attempts {
    private final Key key;
    private final ConditionalWrite write;
    private final Quorum quorum;
    private final ScheduledExecutorService timer;
    private final long deadlineNanos;
    private final List<Proposal> earlier = new ArrayList<>();
    private final Map<NodeId, String> failed = new LinkedHashMap<>();
    private final CompletableFuture<Record> result = new CompletableFuture<>();
    private int attempt;
    private int contended;

    /** The acceptors of the current round. */
    private Owners.Participants participants;

    /** What the current round sent in accepts: the value to commit once it is chosen. */
    private Proposal proposal;

    /**
     * The current phase's calls: its failures, typed, decide the answer of an unreachable round.
     */
    private QuorumCall<Reply> phase;

    Attempts(
        Key key,
        ConditionalWrite write,
        Quorum quorum,
        ScheduledExecutorService timer,
        long deadlineNanos) {
      this.key = key;
      this.write = write;
      this.quorum = quorum;
      this.timer = timer;
      this.deadlineNanos = deadlineNanos;
    }

    void start() {
      long left = deadlineNanos - deadline.nanoTime();
      ScheduledFuture<?> timeout = timer.schedule(this::timedOut, left, TimeUnit.NANOSECONDS);
      result.whenComplete((done, error) -> timeout.cancel(false));
      round();
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

    private void round() {
      if (result.isDone()) {
        return;
      }
      Owners owners = membership.owners();
      Owners.Participants acceptors = owners.participants(key, group.getAsInt());
      if (acceptors.pending().size() > 1) {
        result.completeExceptionally(tooManyPending(owners, acceptors));
        return;
      }
      synchronized (this) {
        participants = acceptors;
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

    /**
     * Cassandra's answer to a lightweight transaction with more than one pending replica
     * (unavailable): the quorum rule is argued for one replica changing hands at a time, and a key
     * gaining more (a state kvorum's one-at-a-time changes do not make) is refused rather than
     * reasoned about.
     */
    private UnavailableException tooManyPending(Owners owners, Owners.Participants acceptors) {
      return new UnavailableException(
          "conditional writes to this key are unavailable while the membership change in"
              + " progress"
              + owners.state().change().map(c -> " (" + c + ")").orElse("")
              + " gives it "
              + acceptors.pending().size()
              + " new replicas ("
              + acceptors.pending().stream().map(NodeId::value).collect(Collectors.joining(", "))
              + "): a Paxos round allows at most one; retry once the change has completed");
    }

    private void answered(
        Round round, Owners.Participants acceptors, NodeId node, Reply reply, Throwable error) {
      Round.Step step;
      synchronized (this) {
        if (error != null) {
          failed.put(node, String.valueOf(Failures.unwrap(error).getMessage()));
        }
        step = error == null ? round.onReply(node, reply) : round.onFailure(node);
      }
      switch (step) {
        case Round.Step.Wait wait -> {}
        case Round.Step.SendAccept send -> {
          synchronized (this) {
            proposal = send.proposal();
          }
          metrics.accept();
          phase(round, acceptors, to -> paxos.accept(to, key, send.proposal()));
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
        case Outcome.Applied applied ->
            commit(accepted, quorum.from()).thenRun(() -> result.complete(applied.written()));
        case Outcome.Refused refused ->
            commit(accepted, ownReplicas(accepted))
                .thenRun(
                    () ->
                        result.completeExceptionally(
                            new ConditionFailedException(
                                refused
                                    .current()
                                    .filter(r -> r.isLive(clock.wallMillis()))
                                    .map(Record::version))));
        case Outcome.Contended lost -> {
          synchronized (this) {
            contended++;
          }
          clock.observe(lost.above());
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
     * @param from this request's {@code from} for its own write, so that a read whose quorum
     *     overlaps the write's sees it; for a value found and proposed again (a refusal), the
     *     replicas it was written with
     */
    private CompletableFuture<Void> commit(Proposal accepted, int from) {
      Optional<Record> value = accepted == null ? Optional.empty() : accepted.value();
      if (value.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      metrics.commit();
      // A request that outlived a change which shrank the cluster below its ack commits to all.
      int ack = Math.min(Math.max(quorum.ack(), Quorum.majorityOf(from)), from);
      return writes
          .write(key, value.get(), new Quorum(ack, from))
          .whenComplete(
              (ok, error) -> {
                if (error != null) {
                  result.completeExceptionally(Failures.unwrap(error));
                }
              });
    }

    /**
     * The replicas a value found and proposed again belongs on: those it was written with (SPEC
     * §3), not this round's, which may be more.
     */
    private int ownReplicas(Proposal accepted) {
      int written = accepted == null ? 1 : accepted.value().map(Record::replicas).orElse(1);
      return Math.min(membership.owners().size(), written);
    }

    /**
     * The failure an unreachable round answers at once, as a plain write would: the acceptors'
     * shared failure when the failure table says retrying will not help (all disks full: 507);
     * empty when a retry may (no answer, an overloaded or stopping node, mixed failures).
     */
    private Optional<Throwable> finalFailure() {
      QuorumCall<Reply> calls;
      synchronized (this) {
        calls = phase;
      }
      if (calls == null || !calls.result().isCompletedExceptionally()) {
        return Optional.empty();
      }
      Throwable failure = Failures.unwrap(calls.result().exceptionNow());
      return FailureKind.of(failure).retryable() ? Optional.empty() : Optional.of(failure);
    }

    private void retry(Round round) {
      round.proposedWrite().ifPresent(earlier::add);
      double jitter = 1 - JITTER + 2 * JITTER * random.getAsDouble();
      long pause = (long) (TimeUnit.MILLISECONDS.toNanos(BACK_OFF.apply(++attempt)) * jitter);
      if (deadline.nanoTime() + pause >= deadlineNanos) {
        return; // the timer answers 504 at the deadline
      }
      timer.schedule(this::round, pause, TimeUnit.NANOSECONDS);
    }
  }
}
