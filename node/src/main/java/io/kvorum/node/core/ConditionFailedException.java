package io.kvorum.node.core;

import java.util.Optional;

/**
 * A conditional write refused because its condition does not hold (HTTP 412, SPEC §10): the key's
 * current version is not the one {@code If-Match} names, or the key exists and {@code
 * If-None-Match: *} wanted it absent. Decided by a quorum of the key's replicas, as linearizable as
 * a success.
 */
public final class ConditionFailedException extends KvorumException {
  private final Optional<Version> current;

  /**
   * @param current the key's current version, empty when the key is absent (never written, deleted
   *     or expired)
   */
  public ConditionFailedException(Optional<Version> current) {
    super(
        current
            .map(v -> "the condition does not hold: the key is at version " + v)
            .orElse("the condition does not hold: the key is absent"),
        null);
    this.current = current;
  }

  /** The key's current version; empty when the key is absent. */
  public Optional<Version> current() {
    return current;
  }
}
