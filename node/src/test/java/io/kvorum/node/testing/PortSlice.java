package io.kvorum.node.testing;

/**
 * The ports {@code [first, end)} of one test JVM: the range {@code [low, high)} cut into {@code
 * forks} equal slices, of which this JVM (numbered from 1, as Surefire's {@code forkNumber}) takes
 * its own.
 */
record PortSlice(int first, int end) {
  PortSlice {
    if (first >= end) {
      throw new IllegalArgumentException("no port in [" + first + ", " + end + ")");
    }
  }

  static PortSlice of(int low, int high, int fork, int forks) {
    if (forks < 1 || fork < 1 || fork > forks) {
      throw new IllegalArgumentException("fork " + fork + " of " + forks);
    }
    int size = (high - low) / forks;
    int first = low + (fork - 1) * size;
    return new PortSlice(first, fork == forks ? high : first + size);
  }
}
