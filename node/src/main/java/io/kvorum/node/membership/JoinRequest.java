package io.kvorum.node.membership;

import io.kvorum.node.core.Failures;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new node's request to be admitted into the cluster (SPEC §8): it asks the member at one address
 * ({@link MembershipProtocol#JOIN}), and again with a growing pause (from {@value
 * #FIRST_PAUSE_MILLIS} ms, doubling, at most {@value #MAX_PAUSE_MILLIS} ms) while that member
 * refuses or does not answer within {@value #ANSWER_TIMEOUT_SECONDS} s, until this node holds a
 * cluster state (an epoch above 0) or closes. The answer is adopted on the io thread, as every
 * state; the requests are sent from the worker; the pauses and the deadline are kept on the node's
 * scheduler ({@link Execution}).
 */
final class JoinRequest {
  // The lines of the membership service, under its name: operators look for them there.
  private static final Logger log = LoggerFactory.getLogger(MembershipService.class);
  private static final long ANSWER_TIMEOUT_SECONDS = 30;
  private static final long FIRST_PAUSE_MILLIS = 500;
  private static final long MAX_PAUSE_MILLIS = 10_000;

  private final Membership membership;
  private final PeerTransport transport;
  private final Execution execution;
  private final String host;
  private final int port;
  private final Member self;
  // Read and written by one step at a time (Execution#loop).
  private long pauseMillis = FIRST_PAUSE_MILLIS;

  JoinRequest(
      Membership membership,
      PeerTransport transport,
      Execution execution,
      String host,
      int port,
      Member self) {
    this.membership = membership;
    this.transport = transport;
    this.execution = execution;
    this.host = host;
    this.port = port;
    this.self = self;
  }

  /**
   * Starts asking; completes once this node holds a cluster state (admitted, or told by gossip),
   * fails if the node closes first.
   */
  CompletableFuture<Void> start() {
    return execution.loop(this::askOnce);
  }

  /** Asks once; completes with whether to ask again, after the pause. */
  private CompletableFuture<Boolean> askOnce() {
    if (execution.closed() || membership.state().epoch() != 0) {
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<ClusterState> answer;
    try {
      answer = transport.callAt(host, port, MembershipProtocol.JOIN, self);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    return execution
        .within(answer, Duration.ofSeconds(ANSWER_TIMEOUT_SECONDS))
        .thenApplyAsync(
            admitted -> {
              membership.adopt(admitted);
              log.info(
                  "admitted into the cluster through {}:{} at epoch {}",
                  host,
                  port,
                  admitted.epoch());
              return false;
            },
            execution.io())
        .exceptionallyComposeAsync(this::pauseAfter, execution.worker());
  }

  private CompletableFuture<Boolean> pauseAfter(Throwable error) {
    long pause = pauseMillis;
    log.info(
        "cannot join through {}:{} yet ({}); asking again in {} ms",
        host,
        port,
        Failures.rootMessage(error),
        pause);
    pauseMillis = Math.min(pause * 2, MAX_PAUSE_MILLIS);
    return execution.pause(Duration.ofMillis(pause)).thenApply(paused -> true);
  }
}
