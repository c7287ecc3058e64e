package io.kvorum.api;

import java.util.Arrays;

/**
 * A value with the entity tag of its version, as a {@code GET} answers it. The tag is opaque: pass
 * it back in {@link KvorumClient#putIfMatch} or {@link KvorumClient#deleteIfMatch}.
 */
public record Versioned(byte[] value, String etag) {
  public Versioned {
    if (value == null || etag == null) {
      throw new IllegalArgumentException("a versioned value needs both its value and its etag");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Versioned that
        && Arrays.equals(value, that.value)
        && etag.equals(that.etag);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(value) + etag.hashCode();
  }

  @Override
  public String toString() {
    return "Versioned[" + value.length + " bytes, etag=" + etag + "]";
  }
}
