package io.kvorum.node.coordinator;

import io.github.resilience4j.core.IntervalFunction;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.ConditionalWrite;
import io.kvorum.node.consensus.Outcome;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.consensus.Round;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.replication.Replicas;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Decides a conditional write (SPEC §10) with single-decree Paxos over the key's {@code from}
 * replicas, a majority of them answering ({@link Round}), and commits the chosen value as an
 * ordinary record through the {@link WriteCoordinator}, so plain reads, ranges, read repair, hints
 * and anti-entropy see it; an accepted value that is not committed yet is seen only by the next
 * round, never by a plain read.
 *
 * <p>A round that loses to another proposer's ballot is retried after a jittered, exponentially
 * growing pause (Resilience4j's {@link IntervalFunction}), with a ballot above the one it lost to,
 * for as long as the request timeout allows; then, and when a round cannot tell whether an earlier
 * round of the same write was chosen, the write fails as a timeout does (504: it may or may not
 * have applied). A refusal (412) is answered only after a quorum accepted the current value again
 * and it was committed, so it is as linearizable as a success.
 */
final class ConditionalWriteCoordinator {
  private static final IntervalFunction BACK_OFF =
      IntervalFunction.ofExponentialRandomBackoff(2, 2.0, 0.5, 100);

  private final Membership membership;
  private final Replicas replicas;
  private final WriteCoordinator writes;
  private final Clock clock;
  private final Duration timeout;
  private final Supplier<ScheduledExecutorService> timers;
  private final PaxosMetrics metrics;

  ConditionalWriteCoordinator(
      Membership membership,
      Replicas replicas,
      WriteCoordinator writes,
      Clock clock,
      Duration timeout,
      Supplier<ScheduledExecutorService> timers,
      MeterRegistry registry) {
    this.membership = membership;
    this.replicas = replicas;
    this.writes = writes;
    this.clock = clock;
    this.timeout = timeout;
    this.timers = timers;
    this.metrics = new PaxosMetrics(registry);
  }

  /**
   * Applies {@code write} to {@code key} if its condition holds.
   *
   * @return the record written; fails with {@link ConditionFailedException} if the condition does
   *     not hold, {@link NotEnoughReplicasException} if it could not be decided in time
   */
  CompletableFuture<Record> write(Key key, ConditionalWrite write, Quorum quorum) {
    List<NodeId> acceptors = membership.owners().readers(key, quorum.from());
    Attempts attempts =
        new Attempts(
            key,
            write,
            acceptors,
            Math.max(quorum.ack(), acceptors.size() / 2 + 1),
            timers.get(),
            System.nanoTime() + timeout.toNanos());
    attempts.start();
    // Counted before the caller sees the answer, so a client that saw it finds it counted.
    return attempts.result.whenComplete((written, error) -> metrics.ended(error));
  }

  /** The rounds of one request, one at a time. */
  private final class Attempts {
    private final Key key;
    private final ConditionalWrite write;
    private final List<NodeId> acceptors;
    private final int quorum;
    private final int commitAck;
    private final ScheduledExecutorService timer;
    private final long deadlineNanos;
    private final List<Proposal> earlier = new ArrayList<>();
    private final Map<NodeId, String> failed = new LinkedHashMap<>();
    private final CompletableFuture<Record> result = new CompletableFuture<>();
    private int attempt;

    /** What the current round sent in accepts: the value to commit once it is chosen. */
    private Proposal proposal;

    Attempts(
        Key key,
        ConditionalWrite write,
        List<NodeId> acceptors,
        int commitAck,
        ScheduledExecutorService timer,
        long deadlineNanos) {
      this.key = key;
      this.write = write;
      this.acceptors = acceptors;
      this.quorum = acceptors.size() / 2 + 1;
      this.commitAck = commitAck;
      this.timer = timer;
      this.deadlineNanos = deadlineNanos;
    }

    void start() {
      long left = deadlineNanos - System.nanoTime();
      ScheduledFuture<?> deadline = timer.schedule(this::timedOut, left, TimeUnit.NANOSECONDS);
      result.whenComplete((done, error) -> deadline.cancel(false));
      round();
    }

    private void timedOut() {
      NotEnoughReplicasException timeout;
      synchronized (this) {
        List<NodeId> silent = acceptors.stream().filter(n -> !failed.containsKey(n)).toList();
        timeout = new NotEnoughReplicasException(quorum, 0, failed, silent);
      }
      result.completeExceptionally(timeout);
    }

    private void round() {
      if (result.isDone()) {
        return;
      }
      Ballot ballot = new Ballot(clock.now(), replicas.self());
      Round round =
          new Round(
              ballot, write, acceptors.size(), quorum, clock.wallMillis(), List.copyOf(earlier));
      metrics.prepare();
      for (NodeId node : acceptors) {
        replicas
            .prepare(node, key, ballot)
            .whenComplete((reply, error) -> answered(round, node, reply, error));
      }
    }

    private void answered(Round round, NodeId node, Reply reply, Throwable error) {
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
          for (NodeId acceptor : acceptors) {
            replicas
                .accept(acceptor, key, send.proposal())
                .whenComplete((r, e) -> answered(round, acceptor, r, e));
          }
        }
        case Round.Step.Done done -> ended(round, done.outcome());
      }
    }

    private void ended(Round round, Outcome outcome) {
      Proposal accepted;
      synchronized (this) {
        accepted = proposal;
        proposal = null;
      }
      switch (outcome) {
        case Outcome.Applied applied ->
            commit(accepted).thenRun(() -> result.complete(applied.written()));
        case Outcome.Refused refused ->
            commit(accepted)
                .thenRun(
                    () ->
                        result.completeExceptionally(
                            new ConditionFailedException(
                                refused
                                    .current()
                                    .filter(r -> r.isLive(clock.wallMillis()))
                                    .map(Record::version))));
        case Outcome.Contended contended -> {
          clock.observe(contended.above());
          metrics.retried(true);
          retry(round);
        }
        case Outcome.Unreachable unreachable -> {
          metrics.retried(false);
          retry(round);
        }
        case Outcome.Indeterminate indeterminate ->
            result.completeExceptionally(
                new NotEnoughReplicasException(
                    quorum,
                    0,
                    Map.of(
                        replicas.self(),
                        "another proposer overtook this write's round: whether it applied cannot"
                            + " be told"),
                    List.of()));
      }
    }

    /** Makes the chosen value an ordinary record on a quorum; a failure fails the request (504). */
    private CompletableFuture<Void> commit(Proposal accepted) {
      Optional<Record> value = accepted == null ? Optional.empty() : accepted.value();
      if (value.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      metrics.commit();
      return writes
          .write(key, value.get(), new Quorum(commitAck, acceptors.size()))
          .whenComplete(
              (ok, error) -> {
                if (error != null) {
                  result.completeExceptionally(Failures.unwrap(error));
                }
              });
    }

    private void retry(Round round) {
      round.proposedWrite().ifPresent(earlier::add);
      long pause = TimeUnit.MILLISECONDS.toNanos(BACK_OFF.apply(++attempt));
      if (System.nanoTime() + pause >= deadlineNanos) {
        return; // the timer answers 504 at the deadline
      }
      timer.schedule(this::round, pause, TimeUnit.NANOSECONDS);
    }
  }
}
