package io.kvorum.node.core;

import java.util.regex.Pattern;

/** The unique name of a node in the cluster: letters, digits, '.', '_' and '-', at most 253. */
public record NodeId(String value) implements Comparable<NodeId> {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,253}");

  public NodeId {
    if (value == null || !VALID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "node id '" + value + "' must be 1-253 letters, digits, '.', '_' or '-'");
    }
  }

  public static NodeId of(String value) {
    return new NodeId(value);
  }

  @Override
  public int compareTo(NodeId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
