package io.kvorum.node.coordinator;

import io.kvorum.node.core.Key;
import java.time.Duration;
import java.util.Objects;

/** One item of a client's batch ({@code POST /v0/batch}): an unconditional read or write. */
public sealed interface BatchItem {
  Key key();

  /** Reads {@code key}, as a GET does. */
  record Get(Key key) implements BatchItem {
    public Get {
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * Stores {@code value} under {@code key}, as a PUT does.
   *
   * @param ttl how long the value lives; {@link Duration#ZERO} for ever
   */
  record Put(Key key, byte[] value, Duration ttl) implements BatchItem {
    public Put {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(ttl, "ttl");
    }
  }

  /** Deletes {@code key}, as a DELETE does. */
  record Delete(Key key) implements BatchItem {
    public Delete {
      Objects.requireNonNull(key, "key");
    }
  }
}
