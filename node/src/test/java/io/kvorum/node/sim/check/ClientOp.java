package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One client operation as the client saw it, in virtual time. Which fields are set depends on the
 * kind and the outcome; the constructor rejects a combination the API cannot produce. Build one
 * with {@link #builder}. Byte arrays are owned by the operation and must not be modified.
 *
 * @param client the client's id
 * @param node the node the request went to (its coordinator)
 * @param kind what was asked
 * @param key the key; for {@link OpKind#RANGE} the first key of the range
 * @param end {@link OpKind#RANGE} only: the end of the range (exclusive), null for no end
 * @param quorum the request's {@code ack}/{@code from}; null for {@link OpKind#RANGE}
 * @param call when the client sent it, virtual nanoseconds
 * @param ret when its answer arrived, or when the client gave up on it
 * @param outcome how it ended
 * @param expected {@link OpKind#PUT_IF_MATCH} and {@link OpKind#DELETE_IF_MATCH} only: the version
 *     the write required ({@code If-Match}); null otherwise
 * @param value for a write that carries a value, the value written (whatever the outcome: the
 *     simulator makes every written value unique); for a {@link OpKind#GET} answered OK, the value
 *     read, null when the key read as absent; null otherwise
 * @param version for a write answered OK, the version it was given; for a {@link OpKind#GET}
 *     answered OK, the version read (null when absent); for a conditional write refused, the
 *     current version the 412 named (null when the key was absent); null otherwise
 * @param entries for a {@link OpKind#RANGE} answered OK, the entries returned; empty otherwise
 */
// Values are the API's raw bytes, owned by the operation and compared by content in equals.
@SuppressWarnings("ArrayRecordComponent")
public record ClientOp(
    int client,
    NodeId node,
    OpKind kind,
    Key key,
    Key end,
    Quorum quorum,
    long call,
    long ret,
    Outcome outcome,
    Version expected,
    byte[] value,
    Version version,
    List<RangeEntry> entries) {
  public ClientOp {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
    entries = List.copyOf(entries);
    if (ret < call) {
      throw new IllegalArgumentException("returned (" + ret + ") before its call (" + call + ")");
    }
    String op = kind + " " + outcome;
    require(kind == OpKind.RANGE ? quorum == null : quorum != null, op, "a quorum unless a range");
    require(end == null || kind == OpKind.RANGE, op, "an end only for a range");
    require(kind.expectsVersion() == (expected != null), op, "an expected version iff If-Match");
    require(entries.isEmpty() || (kind == OpKind.RANGE && outcome == Outcome.OK), op, "no entries");
    boolean read = kind.readsKey() && outcome == Outcome.OK;
    if (kind.writesValue()) {
      require(value != null, op, "the value written");
    } else if (read) {
      require((value == null) == (version == null), op, "a value read with its version or neither");
    } else {
      require(value == null, op, "no value");
    }
    boolean acknowledged = kind.isWrite() && outcome == Outcome.OK;
    require(!acknowledged || version != null, op, "the version it was given");
    boolean named = kind.isConditional() && outcome == Outcome.REFUSED;
    require(acknowledged || read || named || version == null, op, "no version");
  }

  private static void require(boolean condition, String op, String what) {
    if (!condition) {
      throw new IllegalArgumentException(op + " expects " + what);
    }
  }

  /** A builder of an operation of {@code kind} on {@code key} (for a range, its first key). */
  public static Builder builder(OpKind kind, Key key) {
    return new Builder(kind, key);
  }

  /** Whether this is a write answered OK: its effect must last (SPEC §3). */
  public boolean isAcknowledgedWrite() {
    return kind.isWrite() && outcome == Outcome.OK;
  }

  /**
   * Whether {@code record} is this acknowledged write or beats it under last-writer-wins (version,
   * then tombstone over value, then the larger value bytes); false for a null record.
   */
  public boolean isCoveredBy(Record record) {
    if (record == null) {
      return false;
    }
    int byVersion = record.version().compareTo(version);
    if (byVersion != 0) {
      return byVersion > 0;
    }
    if (record.tombstone() != kind.deletes()) {
      return record.tombstone();
    }
    return record.tombstone() || Arrays.compareUnsigned(record.value(), value) >= 0;
  }

  /** Whether {@code record} carries what this write wrote (same version, same kind of record). */
  public boolean isWrittenAs(Record record) {
    return record.version().equals(version)
        && record.tombstone() == kind.deletes()
        && (record.tombstone() || Arrays.equals(record.value(), value));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClientOp op
        && client == op.client
        && call == op.call
        && ret == op.ret
        && node.equals(op.node)
        && kind == op.kind
        && key.equals(op.key)
        && Objects.equals(end, op.end)
        && Objects.equals(quorum, op.quorum)
        && outcome == op.outcome
        && Objects.equals(expected, op.expected)
        && Arrays.equals(value, op.value)
        && Objects.equals(version, op.version)
        && entries.equals(op.entries);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        client, node, kind, key, call, ret, outcome, version, Arrays.hashCode(value));
  }

  @Override
  public String toString() {
    return Describe.op(this);
  }

  /** Collects an operation's fields as the simulator learns them: at the call, then the answer. */
  public static final class Builder {
    private final OpKind kind;
    private final Key key;
    private int client;
    private NodeId node;
    private Key end;
    private Quorum quorum;
    private long call;
    private long ret;
    private Outcome outcome;
    private Version expected;
    private byte[] value;
    private Version version;
    private List<RangeEntry> entries = List.of();

    private Builder(OpKind kind, Key key) {
      this.kind = kind;
      this.key = key;
    }

    /** The client that issued it, and the node it went to. */
    public Builder by(int client, NodeId node) {
      this.client = client;
      this.node = node;
      return this;
    }

    public Builder end(Key end) {
      this.end = end;
      return this;
    }

    public Builder quorum(Quorum quorum) {
      this.quorum = quorum;
      return this;
    }

    /** When the client sent it and when the answer arrived (or the client gave up). */
    public Builder between(long call, long ret) {
      this.call = call;
      this.ret = ret;
      return this;
    }

    public Builder expected(Version expected) {
      this.expected = expected;
      return this;
    }

    /** The value written, or the value a GET read. */
    public Builder value(byte[] value) {
      this.value = value;
      return this;
    }

    /** The version assigned, read, or named by a 412. */
    public Builder version(Version version) {
      this.version = version;
      return this;
    }

    public Builder entries(List<RangeEntry> entries) {
      this.entries = entries;
      return this;
    }

    public Builder outcome(Outcome outcome) {
      this.outcome = outcome;
      return this;
    }

    /** Answered OK with {@code version} (assigned to a write, read by a GET; null: absent). */
    public ClientOp ok(Version version) {
      return version(version).outcome(Outcome.OK).build();
    }

    /** Refused; for a conditional write, {@code current} is the version the 412 named. */
    public ClientOp refused(Version current) {
      return version(current).outcome(Outcome.REFUSED).build();
    }

    /** Ended without a definite answer. */
    public ClientOp unknown() {
      return outcome(Outcome.UNKNOWN).build();
    }

    public ClientOp build() {
      return new ClientOp(
          client, node, kind, key, end, quorum, call, ret, outcome, expected, value, version,
          entries);
    }
  }
}
