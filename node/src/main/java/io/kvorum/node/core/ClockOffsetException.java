package io.kvorum.node.core;

/**
 * A write refused because of a clock further than the max clock offset from its peers: a
 * coordinator whose wall clock is that far from a majority of its peers does not version writes,
 * and a replica does not store a version that far ahead of its own wall clock. Retrying on the same
 * node does not help until its clock is corrected; another node may take the write.
 *
 * <p>{@code offsetMillis} is signed: positive when the refused clock (the coordinator's, the
 * version's) is ahead, negative when it is behind.
 */
public final class ClockOffsetException extends KvorumException {
  private final long offsetMillis;
  private final long maxOffsetMillis;

  public ClockOffsetException(String message, long offsetMillis, long maxOffsetMillis) {
    super(message, null);
    this.offsetMillis = offsetMillis;
    this.maxOffsetMillis = maxOffsetMillis;
  }

  /** How far the refused clock is from the one it was compared with, ahead if positive. */
  public long offsetMillis() {
    return offsetMillis;
  }

  /** The max clock offset the refusal applied. */
  public long maxOffsetMillis() {
    return maxOffsetMillis;
  }
}
