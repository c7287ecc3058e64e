package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Optional;

/** What a conditional write requires of the key's current value. */
public sealed interface Condition {
  /** Whether the condition holds for the key's current record ({@code empty}: never written). */
  boolean holds(Optional<Record> current, long nowMillis);

  /** {@code If-Match}: the key is live and at this version. */
  record IfMatch(Version version) implements Condition {
    @Override
    public boolean holds(Optional<Record> current, long nowMillis) {
      return current
          .filter(r -> r.isLive(nowMillis))
          .map(r -> r.version().equals(version))
          .orElse(false);
    }
  }

  /** {@code If-None-Match: *}: the key is absent: never written, deleted or expired. */
  record IfAbsent() implements Condition {
    @Override
    public boolean holds(Optional<Record> current, long nowMillis) {
      return current.filter(r -> r.isLive(nowMillis)).isEmpty();
    }
  }

  /**
   * A linearizable read: a round that never writes, so it only ever refuses, answering the current
   * value (and proposing it again first where it is not settled).
   */
  record Never() implements Condition {
    @Override
    public boolean holds(Optional<Record> current, long nowMillis) {
      return false;
    }
  }
}
