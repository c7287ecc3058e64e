package io.kvorum.node.core;

import java.util.Objects;
import java.util.Optional;

/**
 * Keys from {@code start} (inclusive) to {@code end} (exclusive) in unsigned byte order; an absent
 * end means "to the last key". A range whose end is not after its start is empty.
 */
public record KeyRange(Key start, Optional<Key> end) {
  public KeyRange {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
  }

  public static KeyRange from(Key start) {
    return new KeyRange(start, Optional.empty());
  }

  public static KeyRange between(Key start, Key end) {
    return new KeyRange(start, Optional.of(end));
  }

  public boolean isEmpty() {
    return end.isPresent() && end.get().compareTo(start) <= 0;
  }

  public boolean contains(Key key) {
    return key.compareTo(start) >= 0 && end.map(e -> key.compareTo(e) < 0).orElse(true);
  }
}
