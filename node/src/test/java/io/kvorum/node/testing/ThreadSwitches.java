package io.kvorum.node.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The context switches of this JVM's threads so far, summed per pool (a thread's name without its
 * number: {@code kvorum-io-1} and {@code kvorum-io-2} are {@code kvorum-io-}), from Linux's {@code
 * /proc/self/task}. A thread that sleeps until another hands it work switches voluntarily once per
 * hand-off, so on an otherwise idle process the voluntary switches per request count the hand-offs.
 * Linux truncates thread names to 15 characters.
 */
public final class ThreadSwitches {
  private static final Path TASKS = Path.of("/proc/self/task");

  /** Voluntary and involuntary switches of one pool. */
  public record Switches(long voluntary, long involuntary) {
    Switches plus(Switches other) {
      return new Switches(voluntary + other.voluntary, involuntary + other.involuntary);
    }

    Switches minus(Switches other) {
      return new Switches(voluntary - other.voluntary, involuntary - other.involuntary);
    }
  }

  private ThreadSwitches() {}

  /** Whether this system reports them (Linux). */
  public static boolean available() {
    return Files.isDirectory(TASKS);
  }

  /** Every pool's switches so far, by pool name. */
  public static Map<String, Switches> byPool() {
    Map<String, Switches> pools = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(TASKS)) {
      tasks.forEach(task -> read(task, pools));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pools;
  }

  /** What each pool switched between two snapshots (pools that did not switch are left out). */
  public static Map<String, Switches> since(Map<String, Switches> before) {
    Map<String, Switches> delta = new TreeMap<>();
    byPool()
        .forEach(
            (pool, now) -> {
              Switches d = now.minus(before.getOrDefault(pool, new Switches(0, 0)));
              if (d.voluntary() > 0 || d.involuntary() > 0) {
                delta.put(pool, d);
              }
            });
    return delta;
  }

  private static void read(Path task, Map<String, Switches> pools) {
    try {
      String pool = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+$", "");
      long voluntary = 0;
      long involuntary = 0;
      for (String line : Files.readAllLines(task.resolve("status"))) {
        if (line.startsWith("voluntary_ctxt_switches:")) {
          voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
          involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
        }
      }
      pools.merge(pool, new Switches(voluntary, involuntary), Switches::plus);
    } catch (IOException | UncheckedIOException e) {
      // The thread ended while being read: it no longer counts.
    }
  }
}
