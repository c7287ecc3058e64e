package io.kvorum.node.core;

/**
 * How many replicas a request involves ({@code from}) and how many must answer ({@code ack}).
 *
 * @param ack replicas that must succeed before the request succeeds, 1..from
 * @param from replicas the request goes to: the first {@code from} of the key's ranking
 */
public record Quorum(int ack, int from) {
  public Quorum {
    if (from < 1) {
      throw new IllegalArgumentException("from must be positive, got " + from);
    }
    if (ack < 1) {
      throw new IllegalArgumentException("ack must be positive, got " + ack);
    }
    if (ack > from) {
      throw new IllegalArgumentException("ack (" + ack + ") must not exceed from (" + from + ")");
    }
  }

  /** The majority of {@code from}: {@code from / 2 + 1}. */
  public static int majorityOf(int from) {
    return from / 2 + 1;
  }

  /** {@code from} replicas, a majority of which must answer. */
  public static Quorum majority(int from) {
    return new Quorum(majorityOf(from), from);
  }

  @Override
  public String toString() {
    return ack + "/" + from;
  }
}
