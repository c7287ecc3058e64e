package io.kvorum.node.sim.check;

import java.util.ArrayList;
import java.util.List;

/**
 * Every request ends in time: no operation's answer comes later than the request timeout plus a
 * slack after its call (every remote call has a deadline; a 504 is the answer when it passes).
 *
 * <p>Range reads are not checked: they stream for as long as they have entries to send. An
 * operation whose answer was lost is recorded with the time its client gave up, so the simulated
 * clients must give up within the timeout plus the slack.
 */
public final class Deadlines implements Checker {
  private final long timeoutNanos;
  private final long slackNanos;

  /**
   * @param timeoutNanos the nodes' {@code --request-timeout}, virtual nanoseconds
   * @param slackNanos what an answer may take beyond it (the hop back to the client, a timer's
   *     granularity)
   */
  public Deadlines(long timeoutNanos, long slackNanos) {
    if (timeoutNanos <= 0 || slackNanos < 0) {
      throw new IllegalArgumentException(
          "a positive timeout and a slack of 0 or more, got " + timeoutNanos + ", " + slackNanos);
    }
    this.timeoutNanos = timeoutNanos;
    this.slackNanos = slackNanos;
  }

  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    long limit = timeoutNanos + slackNanos;
    for (ClientOp op : recording.ops()) {
      long took = op.ret() - op.call();
      if (op.kind() != OpKind.RANGE && took > limit) {
        violations.add(
            new Violation(
                name(),
                op.key().toString(),
                "the "
                    + op
                    + " took "
                    + Describe.time(took)
                    + ", over the request timeout "
                    + Describe.time(timeoutNanos)
                    + " plus the slack "
                    + Describe.time(slackNanos)));
      }
    }
    return violations;
  }
}
