package io.kvorum.node.auth;

import java.util.Locale;

/**
 * What a token may do, each role including the ones before it: {@code read} reads keys, ranges and
 * the node's status; {@code write} also writes and deletes keys; {@code admin} also changes the
 * cluster and starts repairs.
 */
public enum Role {
  READ,
  WRITE,
  ADMIN;

  /** Whether a holder of this role may do what {@code required} is needed for. */
  public boolean includes(Role required) {
    return compareTo(required) >= 0;
  }

  /** The role's name as the tokens file spells it: {@code read}, {@code write}, {@code admin}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The role named {@code name}, in any case.
   *
   * @throws IllegalArgumentException if there is no such role
   */
  public static Role of(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "read" -> READ;
      case "write" -> WRITE;
      case "admin" -> ADMIN;
      // The text is not repeated: a line with its columns swapped would print the token.
      default -> throw new IllegalArgumentException("unknown role: use read, write or admin");
    };
  }
}
