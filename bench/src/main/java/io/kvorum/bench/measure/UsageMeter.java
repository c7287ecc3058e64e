package io.kvorum.bench.measure;

import io.kvorum.bench.measure.ProcFs.ThreadUsage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples the CPU time and context switches of the node processes and of the load generator before
 * and after a measured interval; {@link #between} turns two samples into a {@link Usage}.
 */
public final class UsageMeter {
  private final ProcFs proc;
  private final List<Long> nodePids;
  private final long generatorPid;

  /**
   * @param nodePids the node processes
   * @param generatorPid the process that holds the generator or runs and waits for it (the runner's
   *     JVM); its waited-for children count as generator too
   */
  public UsageMeter(ProcFs proc, List<Long> nodePids, long generatorPid) {
    this.proc = proc;
    this.nodePids = List.copyOf(nodePids);
    this.generatorPid = generatorPid;
  }

  /** The figures as they stand now. */
  public Sample sample() {
    try {
      List<Long> cpu = new ArrayList<>();
      List<Map<Long, ThreadUsage>> threads = new ArrayList<>();
      for (long pid : nodePids) {
        cpu.add(proc.cpuNanos(pid, false));
        threads.add(proc.threads(pid));
      }
      return new Sample(System.nanoTime(), cpu, threads, proc.cpuNanos(generatorPid, true));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read /proc (is a node gone?)", e);
    }
  }

  /**
   * What happened between two samples. Threads count by id: a thread born in the interval counts
   * from zero, one that died in it is missing from the switches and the pools (its CPU time stays
   * in its process's), and an id recycled by a new thread (another name, or fewer switches or less
   * CPU than before) counts as new.
   */
  public static Usage between(Sample before, Sample after) {
    long cpu = 0;
    long switches = 0;
    Map<String, PoolUsage> pools = new HashMap<>();
    for (int node = 0; node < before.nodeCpuNanos().size(); node++) {
      cpu += after.nodeCpuNanos().get(node) - before.nodeCpuNanos().get(node);
      Map<Long, ThreadUsage> earlier = before.threads().get(node);
      for (Map.Entry<Long, ThreadUsage> thread : after.threads().get(node).entrySet()) {
        ThreadUsage now = thread.getValue();
        ThreadUsage was = earlier.get(thread.getKey());
        boolean same =
            was != null
                && was.name().equals(now.name())
                && was.switches() <= now.switches()
                && was.cpuNanos() <= now.cpuNanos();
        long threadCpu = same ? now.cpuNanos() - was.cpuNanos() : now.cpuNanos();
        long threadSwitches = same ? now.switches() - was.switches() : now.switches();
        switches += threadSwitches;
        pools.merge(
            ThreadPools.pool(now.name()),
            new PoolUsage(threadCpu, threadSwitches),
            PoolUsage::plus);
      }
    }
    return new Usage(
        Duration.ofNanos(after.nanoTime() - before.nanoTime()),
        cpu,
        after.generatorCpuNanos() - before.generatorCpuNanos(),
        switches,
        pools);
  }

  /**
   * Each node's CPU over the interval between two samples, in percent of one core: what the nodes
   * cost when idle.
   */
  public static List<Double> corePercentByNode(Sample before, Sample after) {
    double nanos = after.nanoTime() - before.nanoTime();
    List<Double> percent = new ArrayList<>();
    for (int node = 0; node < before.nodeCpuNanos().size(); node++) {
      long cpu = after.nodeCpuNanos().get(node) - before.nodeCpuNanos().get(node);
      percent.add(nanos > 0 ? 100 * cpu / nanos : Double.NaN);
    }
    return percent;
  }

  /**
   * The figures at one moment.
   *
   * @param nanoTime when, by {@link System#nanoTime()}
   * @param nodeCpuNanos CPU time of each node process
   * @param threads CPU time and context switches of each node's live threads, by thread id
   * @param generatorCpuNanos CPU time of the generator's process and its waited-for children
   */
  public record Sample(
      long nanoTime,
      List<Long> nodeCpuNanos,
      List<Map<Long, ThreadUsage>> threads,
      long generatorCpuNanos) {
    public Sample {
      nodeCpuNanos = List.copyOf(nodeCpuNanos);
      threads = List.copyOf(threads);
      if (nodeCpuNanos.size() != threads.size()) {
        throw new IllegalArgumentException("one CPU figure and one thread map per node");
      }
    }
  }
}
