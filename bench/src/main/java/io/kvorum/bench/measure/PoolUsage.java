package io.kvorum.bench.measure;

/**
 * What the threads of one pool ({@link ThreadPools}) of the node processes used in an interval,
 * summed over the nodes.
 *
 * @param cpuNanos CPU time, user and system
 * @param switches voluntary and involuntary context switches
 */
public record PoolUsage(long cpuNanos, long switches) {
  public static final PoolUsage NONE = new PoolUsage(0, 0);

  public PoolUsage plus(long cpu, long switched) {
    return new PoolUsage(cpuNanos + cpu, switches + switched);
  }

  public PoolUsage plus(PoolUsage other) {
    return plus(other.cpuNanos, other.switches);
  }
}
