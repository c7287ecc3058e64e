package io.kvorum.node.topology;

import java.util.regex.Pattern;

/**
 * A failure domain (SPEC §3): a rack, an availability zone, whatever a node and its neighbours lose
 * together. Named by {@code --zone}: letters, digits, '.', '_' and '-', at most 63 (a Kubernetes
 * label value, such as {@code topology.kubernetes.io/zone}'s {@code us-east-1a}). {@link #NONE},
 * the empty name, is the one unnamed zone of every node without {@code --zone}.
 */
public record Zone(String name) implements Comparable<Zone> {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{0,63}");

  /** The zone of nodes that name none: all of them together, as one. */
  public static final Zone NONE = new Zone("");

  public Zone {
    if (name == null || !VALID.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "zone '" + name + "' must be at most 63 letters, digits, '.', '_' or '-'");
    }
  }

  /** The zone named {@code name}; {@link #NONE} for the empty name. */
  public static Zone of(String name) {
    return name == null || name.isEmpty() ? NONE : new Zone(name);
  }

  /** Whether this is a zone someone named, not the unnamed one. */
  public boolean named() {
    return !name.isEmpty();
  }

  @Override
  public int compareTo(Zone other) {
    return name.compareTo(other.name);
  }

  /** The name, or {@code (none)} for the unnamed zone, for logs and messages. */
  @Override
  public String toString() {
    return named() ? name : "(none)";
  }
}
