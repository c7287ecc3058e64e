package io.kvorum.bench;

import io.kvorum.bench.cluster.BenchCluster;
import io.kvorum.bench.cluster.Profiler;
import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.load.OpenLoopClient;
import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.load.Request;
import io.kvorum.bench.load.Workload;
import io.kvorum.bench.measure.ProcFs;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.IdleCpu;
import io.kvorum.bench.report.JarResults;
import io.kvorum.bench.report.Report;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.ScanResult;
import io.kvorum.bench.report.Sweep;
import io.kvorum.bench.report.Table;
import io.kvorum.bench.report.WarmUpCurve;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every phase of a run against one node jar: starts the cluster from the jar, measures it idle and
 * its warm-up from a cold start, preloads it, runs the load phases, the saturation run and the
 * scan, measures it idle once warm, profiles it, adds them to the report, and stops the cluster
 * (deleting its data).
 */
final class JarBench {
  private static final PrintStream OUT = System.out;
  private static final int PRELOAD_CONNECTIONS = 64;
  private final BenchCommand command;
  private final Plan plan;
  private final Workload workload;
  private final String label;
  private final Path jar;
  private final List<String> extraJvm;
  private final List<String> nodeFlags;
  private final List<String> nodeJvm;
  private final Path dir;
  private final Report report;

  /**
   * @param dir where this jar's node logs, GC logs, plots and profiles go
   * @param report the run's report, which this jar's sections are added to
   */
  JarBench(
      BenchCommand command,
      Plan plan,
      Workload workload,
      BenchCommand.Jar jar,
      Path dir,
      Report report) {
    this.command = command;
    this.plan = plan;
    this.workload = workload;
    this.label = jar.label();
    this.jar = jar.path();
    this.extraJvm = jar.jvm();
    this.nodeJvm = new ArrayList<>(command.nodeJvm);
    nodeJvm.addAll(extraJvm);
    this.nodeFlags = new ArrayList<>(command.nodeFlags);
    nodeFlags.addAll(jar.flags());
    this.dir = dir;
    this.report = report;
  }

  JarResults run() throws Exception {
    OUT.printf("%n### %s: %s %s%n", label, jar, String.join(" ", nodeJvm));
    report.files(dir);
    if (!extraJvm.isEmpty()) {
      report.text("The nodes of " + label + " also ran with `" + String.join(" ", extraJvm) + "`.");
    }
    if (nodeFlags.size() > command.nodeFlags.size()) {
      List<String> own = nodeFlags.subList(command.nodeFlags.size(), nodeFlags.size());
      report.text("The nodes of " + label + " had the flags `" + String.join(" ", own) + "`.");
    }
    List<Sweep> sweeps = new ArrayList<>();
    List<IdleCpu> idle = new ArrayList<>();
    WarmUpCurve warmUp = null;
    Run preload;
    Run saturation = null;
    try (BenchCluster cluster =
        BenchCluster.start(
            jar, dir, command.nodes, command.httpPort, command.grpcPort, nodeJvm, nodeFlags)) {
      List<Path> gcLogs = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        gcLogs.add(cluster.gcLog(i));
      }
      UsageMeter meter =
          new UsageMeter(ProcFs.system(), cluster.pids(), ProcessHandle.current().pid());
      Measurer measurer = new Measurer(meter, gcLogs);
      StartupPhases startup = new StartupPhases(command.startupPlan(), meter, measurer);
      if (command.phases.contains("idle")) {
        idle.add(startup.idle(IdleCpu.JUST_STARTED));
        report.idle(heading("idle, " + IdleCpu.JUST_STARTED), idle.get(0), List.of());
      }
      try (LoadGenerator generator = command.generator(dir, workload, cluster.httpAddresses())) {
        if (command.phases.contains("warmup")) {
          // Before the preload: a fresh cluster whose JIT has seen no load.
          warmUp = startup.warmUp(generator);
          report.warmUp(heading("warm-up from a cold start"), warmUp, plan.p99LimitMillis());
        }
        preload = preload(cluster, measurer);
        PhaseRunner runner = new PhaseRunner(generator, measurer, cluster.settler(), plan);
        for (String phase : command.phases) {
          if (phase.equals("saturation")) {
            saturation = saturation(runner);
          } else if (BenchCommand.LOAD_PHASES.contains(phase)) {
            Sweep sweep = runner.run(phase);
            sweeps.add(sweep);
            report.sweep(heading(phase), sweep, plan.p99LimitMillis());
          }
        }
        report.percentilePlot(sweeps);
        if (command.phases.contains("scan")) {
          runner.settle("before the scan", new ArrayList<>());
          scan(cluster);
        }
        if (command.phases.contains("idle")) {
          List<String> notes = new ArrayList<>();
          runner.settle("before measuring idle once warm", notes);
          IdleCpu warm = startup.idle(IdleCpu.ONCE_WARM);
          idle.add(warm);
          report.idle(heading("idle, " + IdleCpu.ONCE_WARM), warm, notes);
        }
        if (!command.profile.equals("none")) {
          profile(runner, generator, cluster, sweeps);
        }
      }
    }
    deleteTree(dir.resolve("data"));
    return new JarResults(label, jar, preload, sweeps, saturation, idle, warmUp);
  }

  private Run preload(BenchCluster cluster, Measurer measurer) {
    OUT.printf("cluster of %d up; loading %,d keys...%n", command.nodes, workload.keys());
    Run load;
    try (OpenLoopClient client = new OpenLoopClient(cluster.httpAddresses())) {
      // The preload always uses the runner's own generator: a closed loop of a known count.
      load =
          measurer.measure(
              () ->
                  client.runClosed(
                      "load",
                      workload.load(),
                      workload.keys(),
                      PRELOAD_CONNECTIONS,
                      Duration.ofMinutes(30)));
    }
    OUT.print(Table.header() + Table.row(load, "load", Double.MAX_VALUE));
    if (load.load().errorCount() > 0) {
      throw new IllegalStateException("preload failed: " + load.load().errors());
    }
    report.text(
        String.format(
            Locale.ROOT,
            "Preload%s: %,d keys in %.1f s (%.0f writes/s, closed loop, %d connections;"
                + " %s µs of node CPU and %s µs of all processes' CPU per write, %s context"
                + " switches per write; GC pauses %s).",
            label.isEmpty() ? "" : " of " + label,
            workload.keys(),
            load.load().sendWindow().toNanos() / 1e9,
            load.load().achievedRate(),
            PRELOAD_CONNECTIONS,
            Table.number(load.nodeMicros()),
            Table.number(load.allMicros()),
            Table.number(load.switches()),
            load.gc().count()));
    return load;
  }

  /** The saturation phase, added to the report with how busy it kept the cores. */
  private Run saturation(PhaseRunner runner) throws InterruptedException {
    List<String> notes = new ArrayList<>();
    Run saturation = runner.saturation(notes);
    notes.add(
        String.format(
            Locale.ROOT,
            "the nodes kept %.2f cores busy on average, all processes %.2f (of %d)",
            saturation.usage().nodeCores(),
            saturation.usage().allCores(),
            Runtime.getRuntime().availableProcessors()));
    report.runs(
        heading("saturation: PUT flat out"),
        List.of(saturation),
        List.of("closed loop, " + plan.saturationConnections() + " connections"),
        plan.p99LimitMillis());
    report.text(String.join("; ", notes) + ".");
    return saturation;
  }

  private String heading(String section) {
    return command.jars().size() > 1 ? label + ": " + section : section;
  }

  private void scan(BenchCluster cluster) throws Exception {
    long before = cluster.heapUsed(0);
    AtomicLong max = new AtomicLong(before);
    AtomicBoolean scanning = new AtomicBoolean(true);
    CompletableFuture<Void> sampler =
        CompletableFuture.runAsync(
            () -> {
              while (scanning.get()) {
                try {
                  max.accumulateAndGet(cluster.heapUsed(0), Math::max);
                  Thread.sleep(200);
                } catch (IOException e) {
                  return;
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            });
    byte[] request =
        ("GET /v0/entities?start=" + Workload.key(0) + " HTTP/1.1\r\nHost: kvorum\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    PhaseResult result;
    InetSocketAddress node0 = cluster.httpAddresses().get(0);
    try (OpenLoopClient client = new OpenLoopClient(List.of(node0))) {
      result =
          client.runClosed(
              "scan", seq -> new Request("scan", request, 200), 1, 1, Duration.ofMinutes(30));
    } finally {
      scanning.set(false);
      sampler.join();
    }
    OUT.printf(
        "%nscan: %,d bytes in %s, errors %s%n",
        result.bytesReceived(), result.sendWindow(), result.errors());
    if (result.errorCount() > 0) {
      throw new IllegalStateException("the range scan failed: " + result.errors());
    }
    ScanResult scan =
        new ScanResult(result.bytesReceived(), result.sendWindow(), before, max.get());
    report.text(
        String.format(
            Locale.ROOT,
            "## %s%n%nOne `GET /v0/entities` over all %,d keys through node-0: %,d bytes in %.2f s"
                + " = **%.0f MB/s**. node-0's heap in use: %,d MB before, at most %,d MB during"
                + " the scan (sampled every 200 ms).",
            heading("Range scan of every key"),
            workload.keys(),
            scan.bytes(),
            scan.elapsed().toNanos() / 1e9,
            scan.megabytesPerSecond(),
            scan.heapBefore() >> 20,
            scan.heapMax() >> 20));
  }

  private void profile(
      PhaseRunner runner, LoadGenerator generator, BenchCluster cluster, List<Sweep> sweeps)
      throws Exception {
    String phase = command.profile;
    Sweep target = sweeps.stream().filter(s -> s.phase().equals(phase)).findFirst().orElse(null);
    if (target == null) {
      report.text("No profile: phase " + phase + " did not run.");
      return;
    }
    // The best rate that held; when none did, the first one tried, to show what stands in the way.
    Run basis =
        target.sustained() != null
            ? target.sustained()
            : !target.holds().isEmpty() ? target.holds().get(0) : target.steps().get(0);
    double rate = basis.load().requestedRate();
    Profiler profiler = Profiler.unpack();
    long pid = cluster.pid(0);
    Duration window = plan.duration().dividedBy(3);
    OUT.printf("%nprofiling node-0 (pid %d) during %s at %.0f req/s%n", pid, phase, rate);
    runner.settle("before the profile", new ArrayList<>());
    CompletableFuture<Run> run =
        CompletableFuture.supplyAsync(
            () ->
                runner.measure(
                    () ->
                        generator.atRate(
                            phase + "@" + (long) rate + " profiled",
                            phase,
                            rate,
                            window.multipliedBy(3).plusSeconds(2))));
    // wrk2 records nothing during its calibration, so its profile starts after it.
    Thread.sleep(command.wrk2() ? 11_000 : 1000);
    List<String> links = new ArrayList<>();
    for (String event : List.of("cpu", "alloc", "lock")) {
      Path html = dir.resolve("profile-" + phase + "-" + event + ".html");
      profiler.start(pid, event);
      Thread.sleep(window);
      profiler.stop(pid, html, "node-0 " + event + " during " + phase + " at " + (long) rate);
      links.add("[" + event + "](" + report.link(html) + ")");
    }
    Run profiled = run.join();
    OUT.print(Table.row(profiled, "profiled", plan.p99LimitMillis()));
    report.text(
        "## "
            + heading("Profiles")
            + "\n\nnode-0 (one of the coordinators) during "
            + phase
            + " at "
            + (long) rate
            + " req/s, "
            + window.toSeconds()
            + " s per event: "
            + String.join(", ", links)
            + ". The load of the profiled run (the profiler's own cost included):\n\n"
            + Table.header()
            + Table.row(profiled, "profiled", plan.p99LimitMillis()));
  }

  /** Deletes {@code root} and everything under it, if it exists. */
  static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var paths = Files.walk(root)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }
}
