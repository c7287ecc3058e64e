package io.kvorum.node.consensus;

import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.Failures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The figures of the conditional writes this node coordinates ({@code kvorum_paxos_*}): the round
 * trips to the key's replicas by kind, the rounds tried again, and the requests by outcome. Round
 * trips per conditional write are the phases over the writes; an uncontended write takes three
 * (prepare, accept, commit).
 */
final class PaxosMetrics {
  private final Counter prepares;
  private final Counter accepts;
  private final Counter commits;
  private final Counter contended;
  private final Counter unreachable;
  private final Counter applied;
  private final Counter refused;
  private final Counter failed;

  PaxosMetrics(MeterRegistry registry) {
    this.prepares = phase("prepare", registry);
    this.accepts = phase("accept", registry);
    this.commits = phase("commit", registry);
    this.contended = retry("contended", registry);
    this.unreachable = retry("unreachable", registry);
    this.applied = outcome("applied", registry);
    this.refused = outcome("refused", registry);
    this.failed = outcome("failed", registry);
  }

  private static Counter phase(String phase, MeterRegistry registry) {
    return Counter.builder("kvorum.paxos.phases")
        .description(
            "round trips to the key's replicas of conditional writes coordinated here, by phase"
                + " (prepare, accept, commit)")
        .tag("phase", phase)
        .register(registry);
  }

  private static Counter retry(String reason, MeterRegistry registry) {
    return Counter.builder("kvorum.paxos.retries")
        .description(
            "rounds tried again, by reason: contended (another proposer's ballot was higher),"
                + " unreachable (no majority of the replicas answered)")
        .tag("reason", reason)
        .register(registry);
  }

  private static Counter outcome(String outcome, MeterRegistry registry) {
    return Counter.builder("kvorum.paxos.requests")
        .description(
            "conditional writes coordinated here, by outcome: applied (201/202), refused (412),"
                + " failed (504 or another error)")
        .tag("outcome", outcome)
        .register(registry);
  }

  void prepare() {
    prepares.increment();
  }

  void accept() {
    accepts.increment();
  }

  void commit() {
    commits.increment();
  }

  void retried(boolean contention) {
    (contention ? contended : unreachable).increment();
  }

  /** A request ended: with no error it applied, with {@link ConditionFailedException} refused. */
  void ended(Throwable error) {
    if (error == null) {
      applied.increment();
    } else if (Failures.unwrap(error) instanceof ConditionFailedException) {
      refused.increment();
    } else {
      failed.increment();
    }
  }
}
