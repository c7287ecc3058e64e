package io.kvorum.node.sim.check;

import java.util.Objects;

/**
 * A guarantee a run broke.
 *
 * @param checker the checker that found it (its simple name, e.g. {@code LostWrites})
 * @param key the key concerned, printable
 * @param message what happened, with the operations, times and replicas a person needs to act
 */
public record Violation(String checker, String key, String message) {
  public Violation {
    Objects.requireNonNull(checker, "checker");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return "[" + checker + "] " + key + ": " + message;
  }
}
