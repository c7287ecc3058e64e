package io.kvorum.node.consensus;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.topology.Owners;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/** What every request's rounds share: the acceptors, the commit, the clock, the deadline. */
record Rounds(
    Membership membership,
    Acceptors acceptors,
    ConditionalWriteCoordinator.Commit commit,
    Clock clock,
    RequestDeadline deadline,
    DoubleSupplier random,
    IntSupplier group,
    PaxosMetrics metrics) {
  /** The deadline of a request that starts now: the request timeout from now. */
  long deadlineFromNow() {
    return deadline.nanoTime() + deadline.timeout().toNanos();
  }

  /** Cassandra's answer to more than one pending replica: the quorum rule is argued for one. */
  static UnavailableException tooManyPending(Owners owners, Owners.Participants acceptors) {
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

  /**
   * The failure an unreachable round answers at once, as a plain write would: unavailable when too
   * few of its acceptors ({@code participants}) are of a release with Paxos ({@code invalid}
   * refused it as unknown); the acceptors' shared failure of the round's last phase ({@code calls})
   * when the failure table says retrying will not help (all disks full: 507); empty when a retry
   * may (no answer, an overloaded or stopping node, mixed failures).
   */
  static Optional<Throwable> finalFailure(
      Owners.Participants participants, Set<NodeId> invalid, QuorumCall<Reply> calls) {
    long refusing = participants.all().stream().filter(invalid::contains).count();
    if (participants.all().size() - refusing < participants.required()) {
      return Optional.of(
          new UnavailableException(
              "conditional writes need every replica of the key on a release that has them: "
                  + invalid
                  + " refused the Paxos messages as unknown (an upgrade under way?)"));
    }
    if (calls == null || !calls.result().isCompletedExceptionally()) {
      return Optional.empty();
    }
    Throwable failure = Failures.unwrap(calls.result().exceptionNow());
    return FailureKind.of(failure).retryable() ? Optional.empty() : Optional.of(failure);
  }
}
