package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One key's history in a recording, for a person reading a failing seed: every operation on it (at
 * its call and at its return) and every record a replica applied, in time order.
 */
public final class History {
  private History() {}

  /** The lines of {@code key}'s history in {@code recording}. */
  public static String of(Recording recording, Key key) {
    record Line(long at, int order, String text) {}
    List<Line> lines = new ArrayList<>();
    for (ClientOp op : recording.ops()) {
      if (op.kind() != OpKind.RANGE && op.key().equals(key)) {
        lines.add(new Line(op.call(), 0, "call   " + op));
        lines.add(new Line(op.ret(), 2, "return " + op));
      }
    }
    for (AppliedRecord a : recording.applied()) {
      if (a.key().equals(key)) {
        lines.add(
            new Line(a.at(), 1, "applied on " + a.node() + ": " + Describe.record(a.record())));
      }
    }
    lines.sort(Comparator.comparingLong(Line::at).thenComparingInt(Line::order));
    StringBuilder text = new StringBuilder("history of " + key + ":");
    for (Line line : lines) {
      text.append(String.format("%n%12s  %s", Describe.time(line.at()), line.text()));
    }
    recording
        .endOf(key)
        .ifPresent(end -> text.append("\nat the end: ").append(end.describeOwners()));
    return text.toString();
  }
}
