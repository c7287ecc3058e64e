package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import java.util.Arrays;
import java.util.Objects;

/**
 * One entry a range read returned: a live value and its version (the NDJSON form's {@code etag}).
 * The value array is owned by the entry and must not be modified.
 */
// A value is the API's raw bytes, owned by the entry and compared by content in equals.
@SuppressWarnings("ArrayRecordComponent")
public record RangeEntry(Key key, Version version, byte[] value) {
  public RangeEntry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(value, "value");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeEntry e
        && key.equals(e.key)
        && version.equals(e.version)
        && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, version, Arrays.hashCode(value));
  }

  @Override
  public String toString() {
    return key + "@" + version + "=" + Describe.value(value);
  }
}
