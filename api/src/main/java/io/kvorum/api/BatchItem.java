package io.kvorum.api;

import java.time.Duration;
import java.util.Objects;

/**
 * One item of a batch ({@link KvorumClient#batch}): an unconditional get, put or delete of a key.
 * Batch keys travel as JSON strings, so they are text (UTF-8).
 *
 * @param op what the item does
 * @param key the key
 * @param value a put's value; null for a get or a delete
 * @param ttl how long a put's value lives; null for ever (and for a get or a delete)
 */
public record BatchItem(Op op, String key, byte[] value, Duration ttl) {
  /** What an item does. */
  public enum Op {
    GET,
    PUT,
    DELETE
  }

  public BatchItem {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(key, "key");
    if ((op == Op.PUT) != (value != null)) {
      throw new IllegalArgumentException("a put, and only a put, has a value");
    }
    if (ttl != null && op != Op.PUT) {
      throw new IllegalArgumentException("only a put has a ttl");
    }
  }

  public static BatchItem get(String key) {
    return new BatchItem(Op.GET, key, null, null);
  }

  public static BatchItem put(String key, byte[] value) {
    return new BatchItem(Op.PUT, key, value, null);
  }

  public static BatchItem put(String key, byte[] value, Duration ttl) {
    return new BatchItem(Op.PUT, key, value, ttl);
  }

  public static BatchItem delete(String key) {
    return new BatchItem(Op.DELETE, key, null, null);
  }
}
