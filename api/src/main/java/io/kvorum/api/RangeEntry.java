package io.kvorum.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One entry of a range response.
 *
 * @param key the key's bytes
 * @param value the value's bytes
 * @param etag the entity tag of the value's version, or null if the server did not say
 */
public record RangeEntry(byte[] key, byte[] value, String etag) {
  public RangeEntry(byte[] key, byte[] value) {
    this(key, value, null);
  }

  /**
   * Where the next page of a range read with a {@code limit} starts: the smallest key after this
   * entry's, its bytes followed by a zero byte (ranges are in key byte order, {@code start}
   * inclusive).
   */
  public byte[] nextStart() {
    return Arrays.copyOf(key, key.length + 1);
  }

  public String keyUtf8() {
    return new String(key, StandardCharsets.UTF_8);
  }

  public String valueUtf8() {
    return new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeEntry e && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return keyUtf8() + "=" + value.length + " bytes";
  }
}
