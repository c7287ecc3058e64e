package io.kvorum.bench.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
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
      List<Map<Long, Long>> switches = new ArrayList<>();
      for (long pid : nodePids) {
        cpu.add(proc.cpuNanos(pid, false));
        switches.add(proc.contextSwitchesByThread(pid));
      }
      return new Sample(System.nanoTime(), cpu, switches, proc.cpuNanos(generatorPid, true));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read /proc (is a node gone?)", e);
    }
  }

  /**
   * What happened between two samples. Context switches count per thread: a thread born in the
   * interval counts from zero, one that died in it is missing.
   */
  public static Usage between(Sample before, Sample after) {
    long cpu = 0;
    long switches = 0;
    for (int node = 0; node < before.nodeCpuNanos().size(); node++) {
      cpu += after.nodeCpuNanos().get(node) - before.nodeCpuNanos().get(node);
      Map<Long, Long> earlier = before.switchesByThread().get(node);
      for (Map.Entry<Long, Long> thread : after.switchesByThread().get(node).entrySet()) {
        // A recycled thread id with fewer switches than before is a new thread.
        long was = earlier.getOrDefault(thread.getKey(), 0L);
        switches += thread.getValue() >= was ? thread.getValue() - was : thread.getValue();
      }
    }
    return new Usage(
        Duration.ofNanos(after.nanoTime() - before.nanoTime()),
        cpu,
        after.generatorCpuNanos() - before.generatorCpuNanos(),
        switches);
  }

  /**
   * The figures at one moment.
   *
   * @param nanoTime when, by {@link System#nanoTime()}
   * @param nodeCpuNanos CPU time of each node process
   * @param switchesByThread context switches of each node's live threads, by thread id
   * @param generatorCpuNanos CPU time of the generator's process and its waited-for children
   */
  public record Sample(
      long nanoTime,
      List<Long> nodeCpuNanos,
      List<Map<Long, Long>> switchesByThread,
      long generatorCpuNanos) {
    public Sample {
      nodeCpuNanos = List.copyOf(nodeCpuNanos);
      switchesByThread = List.copyOf(switchesByThread);
      if (nodeCpuNanos.size() != switchesByThread.size()) {
        throw new IllegalArgumentException("one CPU figure and one switch map per node");
      }
    }
  }
}
