package io.kvorum.bench.measure;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one measured interval cost the machine.
 *
 * @param elapsed wall-clock length of the interval
 * @param nodeCpuNanos CPU time of every node process, all threads, user and system
 * @param generatorCpuNanos CPU time of the load generator: the runner's own JVM (which holds the
 *     built-in generator) and the processes it ran and waited for during the interval (wrk2)
 * @param nodeContextSwitches voluntary and involuntary context switches of the node processes'
 *     threads (threads that exited during the interval are not counted)
 * @param pools the node threads' CPU time and context switches by pool ({@link ThreadPools}),
 *     summed over the nodes (threads that exited during the interval are not counted)
 */
public record Usage(
    Duration elapsed,
    long nodeCpuNanos,
    long generatorCpuNanos,
    long nodeContextSwitches,
    Map<String, PoolUsage> pools) {
  public Usage {
    if (nodeCpuNanos < 0 || generatorCpuNanos < 0 || nodeContextSwitches < 0) {
      throw new IllegalArgumentException("usage cannot be negative");
    }
    pools = Map.copyOf(pools);
  }

  /** A usage without the account by pool. */
  public Usage(
      Duration elapsed, long nodeCpuNanos, long generatorCpuNanos, long nodeContextSwitches) {
    this(elapsed, nodeCpuNanos, generatorCpuNanos, nodeContextSwitches, Map.of());
  }

  /** The usage of the JIT compiler threads ({@code C1} and {@code C2}). */
  public PoolUsage jit() {
    return pool(ThreadPools.C1).plus(pool(ThreadPools.C2));
  }

  /** The usage of one pool; none if it had no live thread. */
  public PoolUsage pool(String name) {
    return pools.getOrDefault(name, PoolUsage.NONE);
  }

  /** The pools by name, sorted. */
  public Map<String, PoolUsage> sortedPools() {
    return new TreeMap<>(pools);
  }

  /** Node CPU per request, in microseconds; NaN without requests. */
  public double nodeMicrosPer(long requests) {
    return per(nodeCpuNanos / 1e3, requests);
  }

  /** CPU of every process (nodes and generator) per request, in microseconds. */
  public double allMicrosPer(long requests) {
    return per((nodeCpuNanos + generatorCpuNanos) / 1e3, requests);
  }

  /** Node context switches per request. */
  public double switchesPer(long requests) {
    return per((double) nodeContextSwitches, requests);
  }

  /** Cores the nodes kept busy on average (node CPU time over wall time). */
  public double nodeCores() {
    return elapsed.isZero() ? Double.NaN : (double) nodeCpuNanos / elapsed.toNanos();
  }

  /** Cores every process kept busy on average. */
  public double allCores() {
    return elapsed.isZero()
        ? Double.NaN
        : (double) (nodeCpuNanos + generatorCpuNanos) / elapsed.toNanos();
  }

  private static double per(double amount, long requests) {
    return requests > 0 ? amount / requests : Double.NaN;
  }
}
