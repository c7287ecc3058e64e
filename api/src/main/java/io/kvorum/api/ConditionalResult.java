package io.kvorum.api;

import java.util.Optional;

/**
 * The outcome of a conditional write: whether its condition held and it was written, and an entity
 * tag: the new version's when it was written; when it was not ({@code 412}), the key's current
 * version's, or none if the key is absent.
 */
public record ConditionalResult(boolean applied, Optional<String> etag) {
  public ConditionalResult {
    if (applied && etag.isEmpty()) {
      throw new IllegalArgumentException("a write that applied has a new version");
    }
  }

  static ConditionalResult written(String etag) {
    return new ConditionalResult(true, Optional.of(etag));
  }

  static ConditionalResult refused(Optional<String> current) {
    return new ConditionalResult(false, current);
  }
}
