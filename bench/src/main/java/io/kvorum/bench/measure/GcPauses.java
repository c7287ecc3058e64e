package io.kvorum.bench.measure;

/**
 * The GC pauses of an interval, summed over the nodes.
 *
 * @param count pauses that ended in the interval
 * @param maxMillis the longest of them
 * @param totalMillis all of them together
 */
public record GcPauses(int count, double maxMillis, double totalMillis) {
  public static final GcPauses NONE = new GcPauses(0, 0, 0);

  public GcPauses {
    if (count < 0 || maxMillis < 0 || totalMillis < maxMillis) {
      throw new IllegalArgumentException(
          "inconsistent pauses: " + count + ", max " + maxMillis + ", total " + totalMillis);
    }
  }

  /** The pauses of both (e.g. of two nodes in the same interval). */
  public GcPauses plus(GcPauses other) {
    return new GcPauses(
        count + other.count, Math.max(maxMillis, other.maxMillis), totalMillis + other.totalMillis);
  }
}
