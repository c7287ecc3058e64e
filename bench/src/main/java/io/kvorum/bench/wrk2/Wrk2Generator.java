package io.kvorum.bench.wrk2;

import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.load.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * wrk2 as the load generator, as a user of the issue ran it: one wrk2 process per node, one thread
 * each, at an equal share of the rate and of the connections, requests made by a Lua script ({@code
 * kvorum.lua}, copied into the results directory) over the same key space and value size as the
 * runner's own generator. Each wrk2 spends its first ten seconds (plus 5 ms per connection)
 * calibrating without recording latencies, so a run at a rate lasts that much longer than asked and
 * records the asked duration. Every process's output is kept in {@code wrk2/}.
 */
public final class Wrk2Generator implements LoadGenerator {
  /** What wrk2 spends calibrating before it records: 10 s plus 5 ms per connection of a thread. */
  static Duration calibration(int connectionsPerThread) {
    return Duration.ofMillis(10_000 + 5L * connectionsPerThread);
  }

  /** wrk2 needs a rate; one no server here reaches makes it send as fast as it is answered. */
  private static final long FLAT_OUT_RATE = 100_000_000;

  private static final Pattern COLON = Pattern.compile(":");
  private final Path wrk2;
  private final Path script;
  private final Path outputs;
  private final Workload workload;
  private final List<InetSocketAddress> targets;
  private final int connections;
  private int runs;

  private Wrk2Generator(
      Path wrk2,
      Path script,
      Path outputs,
      Workload workload,
      List<InetSocketAddress> targets,
      int connections) {
    this.wrk2 = wrk2;
    this.script = script;
    this.outputs = outputs;
    this.workload = workload;
    this.targets = List.copyOf(targets);
    this.connections = connections;
  }

  /**
   * The wrk2 binary: {@code $WRK2} if set, else {@code wrk2} on the {@code PATH}.
   *
   * @throws IllegalStateException saying how to get one when there is none
   */
  public static Path locate(Map<String, String> env) {
    String explicit = env.get("WRK2");
    if (explicit != null && !explicit.isBlank()) {
      Path path = Path.of(explicit);
      if (Files.isExecutable(path)) {
        return path;
      }
      throw new IllegalStateException("$WRK2 is " + explicit + ", which is not an executable");
    }
    for (String dir : COLON.splitAsStream(env.getOrDefault("PATH", "")).toList()) {
      Path path = Path.of(dir.isEmpty() ? "." : dir, "wrk2");
      if (Files.isExecutable(path)) {
        return path;
      }
    }
    throw new IllegalStateException(
        "--generator wrk2: no wrk2 on the PATH and $WRK2 is not set. wrk2 is not packaged; build"
            + " it from https://github.com/giltene/wrk2 (make; needs libssl-dev) and run with"
            + " WRK2=/path/to/wrk2/wrk (see bench/README.md)");
  }

  /**
   * A generator sending to {@code targets} over {@code connections} connections in all, keeping its
   * script and the outputs of its runs in {@code dir}.
   */
  public static Wrk2Generator create(
      Path wrk2, Path dir, Workload workload, List<InetSocketAddress> targets, int connections)
      throws IOException {
    Path outputs = Files.createDirectories(dir.resolve("wrk2"));
    Path script = outputs.resolve("kvorum.lua");
    try (InputStream in = Wrk2Generator.class.getResourceAsStream("kvorum.lua")) {
      if (in == null) {
        throw new IOException("kvorum.lua is missing from the class path");
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    return new Wrk2Generator(wrk2, script, outputs, workload, targets, connections);
  }

  @Override
  public PhaseResult atRate(String name, String phase, double rate, Duration duration) {
    Duration total = duration.plus(calibration((int) share(connections, 0)));
    return run(name, phase, Math.round(rate), rate, connections, total);
  }

  @Override
  public PhaseResult flatOut(String name, String phase, int connections, Duration duration) {
    return run(name, phase, FLAT_OUT_RATE, 0, connections, duration);
  }

  /** For the report: how this generator sends the load. */
  public static String describe(Path wrk2, int connections, int targets) {
    return String.format(
        Locale.ROOT,
        "wrk2 (%s), one process of one thread per node at an equal share of the rate and of %d"
            + " connections, requests made by wrk2/kvorum.lua; latency corrected for coordinated"
            + " omission (wrk2's default), the first %.1f s of each run (its calibration) not"
            + " recorded and added to the run's length",
        wrk2,
        connections,
        calibration((connections + targets - 1) / targets).toMillis() / 1000.0);
  }

  private PhaseResult run(
      String name, String phase, long rate, double askedRate, int conns, Duration duration) {
    long seconds = Math.max(1, (duration.toMillis() + 999) / 1000);
    runs++;
    List<Process> processes = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    try {
      for (int i = 0; i < targets.size(); i++) {
        Path out = outputs.resolve(fileName(name) + "-node" + i + ".txt");
        files.add(out);
        processes.add(
            new ProcessBuilder(command(phase, i, share(rate, i), share(conns, i), seconds))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start());
      }
      List<Wrk2Output> results = new ArrayList<>();
      for (int i = 0; i < processes.size(); i++) {
        Process process = processes.get(i);
        if (!process.waitFor(seconds + 60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("wrk2 did not finish: " + files.get(i));
        }
        String stdout = Files.readString(files.get(i), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
          throw new IllegalStateException("wrk2 failed (" + process.exitValue() + "): " + stdout);
        }
        results.add(Wrk2Output.parse(stdout));
      }
      return Wrk2Output.merge(name, askedRate, Duration.ofSeconds(seconds), results);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run wrk2 " + wrk2, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + name, e);
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }

  private List<String> command(String phase, int target, long rate, long conns, long seconds) {
    InetSocketAddress address = targets.get(target);
    String host =
        address.isUnresolved() ? address.getHostString() : address.getAddress().getHostAddress();
    return List.of(
        wrk2.toString(),
        "-t1",
        "-c" + Math.max(1, conns),
        "-d" + seconds + "s",
        "-R" + Math.max(1, rate),
        "--latency",
        "-s",
        script.toString(),
        "http://" + host + ":" + address.getPort(),
        "--",
        phase,
        String.valueOf(workload.keys()),
        String.valueOf(workload.valueSize()),
        String.valueOf(workload.ack()),
        String.valueOf(workload.from()),
        String.valueOf(workload.readPercent()),
        String.valueOf(workload.rangeSpan()),
        String.valueOf(runs * 1000L + target + 1));
  }

  /** Target {@code i}'s part of {@code total}: equal shares, the remainder to the first ones. */
  private long share(long total, int i) {
    int n = targets.size();
    return total / n + (i < total % n ? 1 : 0);
  }

  private static String fileName(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]+", "_");
  }

  @Override
  public void close() {
    // Every run's processes are gone when it returns.
  }
}
