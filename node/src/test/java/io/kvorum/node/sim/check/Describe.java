package io.kvorum.node.sim.check;

import io.kvorum.node.core.Printable;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Locale;

/** Renders operations, records and times the same way in every checker's messages. */
final class Describe {
  private Describe() {}

  /** Virtual nanoseconds as seconds to the microsecond: {@code 1.250000s}. */
  static String time(long nanos) {
    if (nanos < 0) {
      return "-" + time(-nanos);
    }
    return String.format(
        Locale.ROOT, "%d.%06ds", nanos / 1_000_000_000L, Math.abs(nanos % 1_000_000_000L) / 1000);
  }

  /** A version, or {@code absent} for none. */
  static String version(Version version) {
    return version == null ? "absent" : version.toString();
  }

  /** A value, quoted and cut short. */
  static String value(byte[] value) {
    return "'" + Printable.bytes(value, 40) + "'";
  }

  /** A record as a read would describe it, or {@code none}. */
  static String record(Record record) {
    if (record == null) {
      return "none";
    }
    if (record.tombstone()) {
      return "tombstone@" + record.version();
    }
    return "@"
        + record.version()
        + " "
        + value(record.value())
        + (record.hasExpiry() ? " (expires " + record.expiresAtMillis() + ")" : "");
  }

  /**
   * An operation with everything needed to find it in a trace: {@code PUT k 2/3 by client 1 via n2
   * [1.000000s, 1.200000s] value 'a' -> OK @17.0}.
   */
  static String op(ClientOp op) {
    StringBuilder text = new StringBuilder().append(op.kind()).append(' ').append(op.key());
    if (op.kind() == OpKind.RANGE) {
      text.append("..").append(op.end() == null ? "" : op.end());
    } else {
      text.append(' ').append(op.quorum());
    }
    text.append(" by client ")
        .append(op.client())
        .append(" via ")
        .append(op.node())
        .append(" [")
        .append(time(op.call()))
        .append(", ")
        .append(time(op.ret()))
        .append(']');
    if (op.expected() != null) {
      text.append(" if-match ").append(op.expected());
    }
    if (op.value() != null && op.kind().writesValue()) {
      text.append(" value ").append(value(op.value()));
    }
    text.append(" -> ").append(op.outcome());
    answer(op, text);
    return text.toString();
  }

  private static void answer(ClientOp op, StringBuilder text) {
    if (op.kind() == OpKind.GET && op.outcome() == Outcome.OK) {
      text.append(op.version() == null ? " absent" : " @" + op.version() + " " + value(op.value()));
    } else if (op.kind() == OpKind.RANGE && op.outcome() == Outcome.OK) {
      text.append(' ').append(op.entries().size()).append(" entries");
    } else if (op.outcome() == Outcome.OK || op.outcome() == Outcome.REFUSED) {
      if (op.version() != null || op.kind().isConditional()) {
        text.append(op.outcome() == Outcome.OK ? " @" : " current ").append(version(op.version()));
      }
    }
  }
}
