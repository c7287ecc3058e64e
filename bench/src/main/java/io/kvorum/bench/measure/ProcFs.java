package io.kvorum.bench.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * CPU time and context switches of processes, read from Linux's {@code /proc} (or a directory laid
 * out like it, for tests).
 */
public final class ProcFs {
  private static final Pattern WHITESPACE = Pattern.compile("\\s+");
  private final Path root;
  private final long ticksPerSecond;

  /**
   * @param root the {@code /proc} directory
   * @param ticksPerSecond the kernel's clock ticks per second ({@code getconf CLK_TCK})
   */
  public ProcFs(Path root, long ticksPerSecond) {
    if (ticksPerSecond <= 0) {
      throw new IllegalArgumentException("ticksPerSecond must be positive: " + ticksPerSecond);
    }
    this.root = root;
    this.ticksPerSecond = ticksPerSecond;
  }

  /** This machine's {@code /proc}. */
  public static ProcFs system() {
    return new ProcFs(Path.of("/proc"), clockTicks());
  }

  /**
   * CPU time (user and system) process {@code pid} has used, in nanoseconds: every thread's, the
   * exited ones' included; with {@code children}, also that of the children it has waited for (how
   * a parent sees the CPU of the short-lived processes it ran).
   *
   * @throws IOException if the process is gone or {@code /proc} unreadable
   */
  public long cpuNanos(long pid, boolean children) throws IOException {
    String stat = Files.readString(root.resolve(pid + "/stat"), StandardCharsets.US_ASCII);
    long[] times = statTimes(stat);
    long ticks = times[0] + times[1] + (children ? times[2] + times[3] : 0);
    return ticks * TimeUnit.SECONDS.toNanos(1) / ticksPerSecond;
  }

  /**
   * CPU time and context switches of each live thread of {@code pid}, by thread id, from {@code
   * task/<tid>/stat} ({@code utime + stime}, and the thread's name) and {@code task/<tid>/status}.
   * A thread that exits between the listing and the reads is left out.
   *
   * @throws IOException if the process is gone or {@code /proc} unreadable
   */
  public Map<Long, ThreadUsage> threads(long pid) throws IOException {
    Map<Long, ThreadUsage> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(root.resolve(pid + "/task"))) {
      for (Path task : tasks) {
        try {
          String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
          String status = Files.readString(task.resolve("status"), StandardCharsets.US_ASCII);
          long[] times = statTimes(stat);
          threads.put(
              Long.parseLong(task.getFileName().toString()),
              new ThreadUsage(
                  statName(stat),
                  (times[0] + times[1]) * TimeUnit.SECONDS.toNanos(1) / ticksPerSecond,
                  contextSwitches(status)));
        } catch (NoSuchFileException e) {
          // The thread exited between the listing and the read.
        }
      }
    }
    return threads;
  }

  /**
   * What one thread has used so far.
   *
   * @param name the thread's name as the kernel keeps it ({@code comm}, at most 15 characters)
   * @param cpuNanos its CPU time, user and system
   * @param switches its voluntary and involuntary context switches
   */
  public record ThreadUsage(String name, long cpuNanos, long switches) {}

  /** The command name of a {@code stat} line: between the first '(' and the last ')'. */
  static String statName(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
    }
    return stat.substring(open + 1, close);
  }

  /**
   * {@code utime, stime, cutime, cstime} (clock ticks) of a {@code /proc/<pid>/stat} line. The
   * command name in parentheses may hold spaces and parentheses, so fields count from the last
   * {@code ')'}.
   */
  static long[] statTimes(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
    }
    // After the name: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
    List<String> fields = WHITESPACE.splitAsStream(stat.substring(close + 1).trim()).toList();
    if (fields.size() < 15) {
      throw new IllegalArgumentException("too few fields in /proc/<pid>/stat: " + stat);
    }
    return new long[] {
      Long.parseLong(fields.get(11)),
      Long.parseLong(fields.get(12)),
      Long.parseLong(fields.get(13)),
      Long.parseLong(fields.get(14))
    };
  }

  /** {@code voluntary_ctxt_switches + nonvoluntary_ctxt_switches} of a status file. */
  static long contextSwitches(String status) {
    long sum = 0;
    int found = 0;
    for (String line : status.lines().toList()) {
      if (line.startsWith("voluntary_ctxt_switches:")
          || line.startsWith("nonvoluntary_ctxt_switches:")) {
        sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        found++;
      }
    }
    if (found != 2) {
      throw new IllegalArgumentException("no context switch counts in the status file");
    }
    return sum;
  }

  private static long clockTicks() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (getconf.waitFor() == 0) {
        return Long.parseLong(out.trim());
      }
    } catch (IOException | NumberFormatException e) {
      // Fall through to the value of every Linux on x86 and arm64.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
