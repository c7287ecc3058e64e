package io.kvorum.node.consensus;

import io.github.resilience4j.core.IntervalFunction;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
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
import io.kvorum.node.core.Version;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.topology.Owners;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;

/**
 * Decides a conditional write (SPEC §10) with single-decree Paxos over the key's {@code from}
 * replicas, a majority of them answering ({@link Round}), and during a membership change over those
 * and the replica the key gains, with one more answer for it ({@link Owners#participants},
 * Cassandra's rule); commits the chosen value as an ordinary record, so plain reads, ranges, read
 * repair, hints and anti-entropy see it, the new owners included: where this node is one of at most
 * three acceptors its own acceptor accepts first and the others store the value as they accept it
 * (two round trips), otherwise through the plain write path ({@link Commit}); an accepted value
 * that is not committed yet is seen only by the next round, never by a plain read. A write that
 * fails after accepts that may have stored its value is finished in the background ({@link
 * Unfinished}).
 *
 * <p>Each phase goes to the acceptors as a plain write goes to its replicas ({@link QuorumCall}),
 * within the same request deadline ({@link RequestDeadline}). A round that loses to another
 * proposer's ballot is retried after a jittered, exponentially growing pause (Resilience4j's {@link
 * IntervalFunction}, jittered from the given randomness), with a ballot above the one it lost to,
 * for as long as the request timeout allows; then, and when a round cannot tell whether an earlier
 * round of the same write was chosen, the write fails as a timeout does (504: it may or may not
 * have applied). A round that too many acceptors failed is answered as a plain write would be, by
 * the failure table ({@link FailureKind}): failures not worth retrying that the acceptors share (a
 * full disk: 507) at once, the others retried. A refusal (412) is answered only on a value settled
 * on a quorum (committed on every acceptor that answered, nothing newer accepted) or once a quorum
 * accepted the current value again and it was committed, so it is as linearizable as a success. The
 * rounds of one request are a {@link PaxosRequest}. A linearizable read ({@link #read}) is a round
 * that writes nothing of its own.
 *
 * <p>A node runs its requests of one key one after another, and hands a key's writes to the key's
 * proposer on another node once a round of the key lost here to another proposer ({@link
 * Proposers}, docs/decisions/a-contended-key-is-proposed-by-one-node.md); it runs the writes handed
 * to it ({@link #proposeHere}) in turn with its own, each copy of one message once.
 */
public final class ConditionalWriteCoordinator {
  private final Clock clock;
  private final PaxosMetrics metrics;
  private final RequestDeadline deadline;
  private final Rounds rounds;
  private final Unfinished unfinished;
  private final Proposers proposers;

  /**
   * The writes handed over to this node, by origin and its clock when sent, each kept for {@link
   * #handOverKept} after it came: a copy of the message (a network may deliver one twice) gets the
   * same answer and runs nothing.
   */
  private final Map<HandedOver, CompletableFuture<PaxosProtocol.Proposed>> handedOver =
      new HashMap<>();

  /**
   * How long a write handed over may still arrive after it was sent, by this node's clock: the
   * request timeout, plus the largest offset between two nodes' clocks that lets them version
   * writes. One that arrives later than that is not run: its request has ended, and so has its
   * entry in {@link #handedOver}.
   */
  private final Duration handOverKept;

  private record HandedOver(NodeId origin, Version sent) {}

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
   * @param hintWindow how long a failed write whose accepts may have stored its value on some
   *     replica is tried again in the background ({@link Unfinished}), as a hint is kept
   * @param maxClockOffset the largest offset between two nodes' clocks that lets them version
   *     writes ({@code --max-clock-offset})
   */
  public ConditionalWriteCoordinator(
      Membership membership,
      Acceptors acceptors,
      Commit commit,
      Clock clock,
      RequestDeadline deadline,
      DoubleSupplier random,
      IntSupplier group,
      Duration hintWindow,
      Duration maxClockOffset,
      MeterRegistry registry) {
    this.clock = clock;
    this.metrics = new PaxosMetrics(registry);
    this.rounds =
        new Rounds(membership, acceptors, commit, clock, deadline, random, group, metrics);
    this.unfinished = new Unfinished(rounds, hintWindow, registry);
    this.deadline = deadline;
    this.proposers =
        new Proposers(acceptors, clock, membership, group, deadline::nanoTime, metrics);
    this.handOverKept = deadline.timeout().plus(maxClockOffset);
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
    PaxosRequest request =
        new PaxosRequest(
            rounds, key, write, quorum, unfinished, rounds.deadlineFromNow(), this::handOver);
    CompletableFuture<Outcome> result = request.arm();
    if (!(proposers.contended(key) && request.handedOver(null))) {
      proposers.inTurn(key, request);
    }
    return result
        .whenComplete((outcome, error) -> metrics.ended(outcome, error, false))
        .thenCompose(
            outcome ->
                switch (outcome) {
                  case Outcome.Applied applied ->
                      CompletableFuture.completedFuture(applied.written());
                  case Outcome.Refused refused ->
                      CompletableFuture.failedFuture(
                          new ConditionFailedException(
                              live(refused.current()).map(Record::version)));
                  default -> throw new IllegalStateException("a request ended " + outcome);
                });
  }

  /**
   * Reads {@code key} linearizably (SPEC §10, as Cassandra's {@code SERIAL}): a round that writes
   * nothing of its own. Its prepare reads the acceptors; a value settled on a quorum is answered at
   * once, and anything in progress (a value accepted but not committed everywhere that answered) is
   * finished first: proposed again at this round's ballot and committed, so the read never returns
   * a value older than a conditional write already acknowledged, nor one a later read could miss.
   *
   * @param quorum the request's {@code ack}, for the commit of a value finished so
   * @return the key's live record, empty if absent, deleted or expired; fails as {@link #write}
   *     fails when it cannot be decided in time
   */
  public CompletableFuture<Optional<Record>> read(Key key, Quorum quorum) {
    PaxosRequest request =
        new PaxosRequest(
            rounds,
            key,
            ConditionalWrite.read(),
            quorum,
            unfinished,
            rounds.deadlineFromNow(),
            null);
    CompletableFuture<Outcome> result = request.arm();
    proposers.inTurn(key, request);
    return result
        .whenComplete((outcome, error) -> metrics.ended(outcome, error, true))
        .thenApply(
            outcome ->
                switch (outcome) {
                  case Outcome.Refused refused -> live(refused.current());
                  default -> throw new IllegalStateException("a read ended " + outcome);
                });
  }

  /**
   * Runs a conditional write another node handed over ({@link Proposers}): in turn with this node's
   * own requests of the key, never handed on.
   *
   * @return how it ended; {@link PaxosProtocol.Proposed.Undecided} where this node's own request
   *     would answer 504
   */
  public CompletableFuture<PaxosProtocol.Proposed> proposeHere(PaxosProtocol.Propose propose) {
    long ageMillis = clock.wallMillis() - propose.sent().physicalMillis();
    if (ageMillis > handOverKept.toMillis()) {
      return CompletableFuture.completedFuture(
          new PaxosProtocol.Proposed.Undecided(
              "it arrived " + ageMillis + " ms after it was handed over, after its deadline"));
    }
    HandedOver id = new HandedOver(propose.origin(), propose.sent());
    CompletableFuture<PaxosProtocol.Proposed> answer;
    synchronized (handedOver) {
      CompletableFuture<PaxosProtocol.Proposed> earlier = handedOver.get(id);
      if (earlier != null) {
        return earlier;
      }
      answer = new CompletableFuture<>();
      handedOver.put(id, answer);
    }
    deadline
        .scheduler()
        .schedule(
            () -> {
              synchronized (handedOver) {
                handedOver.remove(id);
              }
            },
            handOverKept.toNanos(),
            TimeUnit.NANOSECONDS);
    PaxosRequest request =
        new PaxosRequest(
            rounds,
            propose.key(),
            propose.write(),
            propose.quorum(),
            unfinished,
            deadline.nanoTime() + Math.min(propose.timeout().toNanos(), timeoutNanos()),
            null);
    request
        .arm()
        .whenComplete(
            (outcome, error) -> {
              Throwable cause = error == null ? null : Failures.unwrap(error);
              if (cause == null) {
                answer.complete(new PaxosProtocol.Proposed.Decided(outcome));
              } else if (cause instanceof NotEnoughReplicasException
                  || FailureKind.of(cause) == FailureKind.INVALID_REQUEST) {
                // Not INVALID on the wire: that says the message was refused unread, and its
                // origin runs the write itself (Proposers#handOver), which this one may have run.
                answer.complete(new PaxosProtocol.Proposed.Undecided(cause.getMessage()));
              } else {
                answer.completeExceptionally(cause);
              }
            });
    proposers.inTurn(propose.key(), request);
    return answer;
  }

  /** Hands a request over to its key's proposer ({@link Proposers#handOver}). */
  private boolean handOver(
      Key key,
      ConditionalWrite write,
      Quorum quorum,
      long deadlineNanos,
      CompletableFuture<Outcome> result) {
    return proposers.handOver(
        key,
        write,
        quorum,
        deadlineNanos,
        result,
        () ->
            new PaxosRequest(rounds, key, write, quorum, unfinished, deadlineNanos, null).start());
  }

  private long timeoutNanos() {
    return deadline.timeout().toNanos();
  }

  private Optional<Record> live(Optional<Record> current) {
    return current.filter(r -> r.isLive(clock.wallMillis()));
  }
}
