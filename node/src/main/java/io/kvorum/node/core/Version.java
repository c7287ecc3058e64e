package io.kvorum.node.core;

/**
 * A hybrid-logical-clock timestamp used as the version of a write: physical Unix milliseconds in
 * the high 48 bits, then a 16-bit logical counter, packed into a non-negative long so that versions
 * order as longs. The sign bit stays clear, which leaves 47 bits of physical time (until the year
 * 6429).
 */
public record Version(long value) implements Comparable<Version> {
  /** Sorts before every version a clock issues. */
  public static final Version ZERO = new Version(0);

  public static final int LOGICAL_BITS = 16;

  /** The largest physical time a version holds: the sign bit of the packed value stays clear. */
  public static final long MAX_PHYSICAL = (1L << 47) - 1;

  public static final int MAX_LOGICAL = (1 << LOGICAL_BITS) - 1;

  public Version {
    if (value < 0) {
      throw new IllegalArgumentException("version out of range: " + value);
    }
  }

  public static Version of(long physicalMillis, int logical) {
    if (physicalMillis < 0 || physicalMillis > MAX_PHYSICAL) {
      throw new IllegalArgumentException("physical time out of range: " + physicalMillis);
    }
    if (logical < 0 || logical > MAX_LOGICAL) {
      throw new IllegalArgumentException("logical counter out of range: " + logical);
    }
    return new Version(physicalMillis << LOGICAL_BITS | logical);
  }

  /** Unix milliseconds of the wall clock (or of a clock it followed) when this version was made. */
  public long physicalMillis() {
    return value >>> LOGICAL_BITS;
  }

  public int logical() {
    return (int) (value & MAX_LOGICAL);
  }

  @Override
  public int compareTo(Version other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return physicalMillis() + "." + logical();
  }
}
