package io.kvorum.node.sim.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * With at most one zone lost at a time, and a key's replicas each in a zone of its own (SPEC §3), a
 * read or write that asks for fewer confirmations than its {@code from} ({@code ack <= from - 1})
 * always finds enough replicas: it is answered, not left without an answer ({@code 503}, {@code
 * 504}). Checked for single-key reads, writes and deletes; not for conditional ones, whose rounds
 * may lose to each other and answer {@code 504} for that alone (issue 42), nor ranges. An operation
 * whose own node crashed, started or froze while it was under way ({@code excused}) answered
 * nothing for that reason alone.
 */
public final class Availability implements Checker {
  private final Set<ClientOp> excused;

  /** Every operation but those of {@code excused}. */
  public Availability(Set<ClientOp> excused) {
    this.excused = Set.copyOf(excused);
  }

  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    for (ClientOp op : recording.ops()) {
      boolean plain =
          op.kind() == OpKind.GET || op.kind() == OpKind.PUT || op.kind() == OpKind.DELETE;
      if (plain
          && op.outcome() == Outcome.UNKNOWN
          && op.quorum().ack() < op.quorum().from()
          && !excused.contains(op)) {
        violations.add(
            new Violation(
                name(),
                op.key().toString(),
                Describe.op(op)
                    + " got no answer though at most one zone was lost and it asked "
                    + op.quorum().ack()
                    + " of "
                    + op.quorum().from()
                    + " replicas, each in a zone of its own"));
      }
    }
    return violations;
  }
}
