package io.kvorum.node.core;

/**
 * A hybrid-logical-clock timestamp used as the version of a write: 48 bits of physical Unix
 * milliseconds, then a 16-bit logical counter, packed so that versions order as unsigned longs
 * (and, for any date before year 10889, as signed longs too).
 */
public record Version(long value) implements Comparable<Version> {
  /** Sorts before every version a clock issues. */
  public static final Version ZERO = new Version(0);

  public static final int LOGICAL_BITS = 16;
  public static final long MAX_PHYSICAL = (1L << 48) - 1;
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

  public boolean isAfter(Version other) {
    return value > other.value;
  }

  @Override
  public String toString() {
    return physicalMillis() + "." + logical();
  }
}
