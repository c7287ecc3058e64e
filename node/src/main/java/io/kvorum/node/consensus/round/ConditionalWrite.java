package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;

/**
 * A write that applies only if its condition holds: a value (with a time to live, 0 for ever) or,
 * when {@code value} is null, a delete.
 */
public record ConditionalWrite(Condition condition, byte[] value, long ttlMillis, int replicas) {
  public static ConditionalWrite put(Condition condition, byte[] value, long ttlMillis, int from) {
    return new ConditionalWrite(condition, value.clone(), ttlMillis, from);
  }

  public static ConditionalWrite delete(Condition condition, int from) {
    return new ConditionalWrite(condition, null, 0, from);
  }

  /** A linearizable read: a round whose condition never holds, so it writes nothing of its own. */
  public static ConditionalWrite read() {
    return new ConditionalWrite(new Condition.Never(), null, 0, 1);
  }

  /** The record this write stores when its round's ballot has {@code version}. */
  public Record at(Version version) {
    if (value == null) {
      return Record.tombstone(version, replicas);
    }
    long expiresAt = ttlMillis == 0 ? Record.NO_EXPIRY : version.physicalMillis() + ttlMillis;
    return Record.value(version, value, expiresAt, replicas);
  }
}
