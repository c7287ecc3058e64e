package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The figures of the conditional writes this node coordinates ({@code kvorum_paxos_*}): the round
 * trips to the key's replicas by kind, the rounds tried again, and the requests by outcome (reads
 * among them). Round trips per conditional write are the phases over the writes; an uncontended
 * write takes two (prepare, accept: the acceptors commit it as they accept it) where this node is
 * one of at most three acceptors, else three (and a commit), a refusal or a read of a settled value
 * one.
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
  private final Counter read;
  private final Counter handedOver;

  PaxosMetrics(MeterRegistry registry) {
    this.prepares = phase("prepare", registry);
    this.accepts = phase("accept", registry);
    this.commits = phase("commit", registry);
    this.contended = retry("contended", registry);
    this.unreachable = retry("unreachable", registry);
    this.applied = outcome("applied", registry);
    this.refused = outcome("refused", registry);
    this.failed = outcome("failed", registry);
    this.read = outcome("read", registry);
    this.handedOver =
        Counter.builder("kvorum.paxos.handovers")
            .description(
                "conditional writes handed to their key's proposer on another node after a round"
                    + " of the key lost here to another proposer (counted as requests here, their"
                    + " round trips there)")
            .register(registry);
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
            "conditional writes and linearizable reads coordinated here, by outcome: applied"
                + " (201/202), refused (412), read (a linearizable read answered), failed (504 or"
                + " another error)")
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

  void handedOver() {
    handedOver.increment();
  }

  void retried(boolean contention) {
    (contention ? contended : unreachable).increment();
  }

  /** A request ended: with no error it applied or was refused (a read read), else failed. */
  void ended(Outcome outcome, Throwable error, boolean isRead) {
    if (error != null) {
      failed.increment();
    } else if (isRead) {
      read.increment();
    } else {
      (outcome instanceof Outcome.Applied ? applied : refused).increment();
    }
  }
}
