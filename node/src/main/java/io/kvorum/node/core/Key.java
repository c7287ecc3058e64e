package io.kvorum.node.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A key: arbitrary non-empty bytes, ordered by unsigned byte-wise comparison (the order RocksDB's
 * default comparator and range scans use).
 *
 * <p>The array passed to {@link #of(byte[])} is owned by the key afterwards and must not be
 * modified; {@link #bytes()} exposes it without a copy for the same reason.
 */
public final class Key implements Comparable<Key> {
  private final byte[] bytes;
  private int hash;

  private Key(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Wraps {@code bytes} without copying. */
  public static Key of(byte[] bytes) {
    if (bytes.length == 0) {
      throw new IllegalArgumentException("a key must not be empty");
    }
    return new Key(bytes);
  }

  /** The UTF-8 bytes of {@code text}. */
  public static Key utf8(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The key's bytes; callers must not modify them. */
  public byte[] bytes() {
    return bytes;
  }

  public int size() {
    return bytes.length;
  }

  @Override
  public int compareTo(Key other) {
    return Arrays.compareUnsigned(bytes, other.bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Key k && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = Arrays.hashCode(bytes);
      hash = h;
    }
    return h;
  }

  /**
   * Printable form for logs and errors: UTF-8 where it decodes cleanly, escaped bytes otherwise.
   */
  @Override
  public String toString() {
    return Printable.bytes(bytes, 64);
  }
}
