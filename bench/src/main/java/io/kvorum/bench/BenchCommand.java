package io.kvorum.bench;

import io.kvorum.bench.cluster.BenchCluster;
import io.kvorum.bench.cluster.Profiler;
import io.kvorum.bench.load.OpenLoopClient;
import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.load.Request;
import io.kvorum.bench.load.RequestSource;
import io.kvorum.bench.load.Workload;
import io.kvorum.bench.report.Report;
import io.kvorum.bench.report.ScanResult;
import io.kvorum.bench.report.Sweep;
import io.kvorum.node.core.DurationFormat;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench/run.sh}: starts a local kvorum cluster, preloads it, sweeps the rate of each phase
 * with the open-loop generator, profiles one phase with async-profiler, and writes a report.
 */
@Command(
    name = "bench/run.sh",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = CalibrateCommand.class,
    description = {
      "Benchmarks a local kvorum cluster at constant request rates (open loop) and writes",
      "bench/results/<timestamp>/report.md with tables, plots and flame graphs."
    })
public final class BenchCommand implements Callable<Integer> {
  private static final PrintStream OUT = System.out;
  private static final List<String> LOAD_PHASES = List.of("put", "get", "mixed", "range");

  @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

  @Option(names = "--keys", description = "Keys preloaded and used (default: ${DEFAULT-VALUE}).")
  long keys = 100_000;

  @Option(names = "--value-size", description = "Value bytes (default: ${DEFAULT-VALUE}).")
  int valueSize = 1024;

  @Option(names = "--from", description = "Replicas per key (default: the cluster size).")
  Integer from;

  @Option(names = "--ack", description = "Replicas that must answer (default: a majority).")
  Integer ack;

  @Option(
      names = "--phases",
      split = ",",
      description = "Phases to run, of put,get,mixed,range,scan (default: all).")
  List<String> phases = List.of("put", "get", "mixed", "range", "scan");

  @Option(
      names = "--rates",
      split = ",",
      description =
          "Rates (req/s) the put/get/mixed sweeps step through (default: ${DEFAULT-VALUE}).")
  List<Integer> rates = List.of(1000, 2000, 5000, 10000, 15000, 20000, 25000, 30000, 40000, 50000);

  @Option(
      names = "--range-rates",
      split = ",",
      description = "Rates of the range sweep (default: ${DEFAULT-VALUE}).")
  List<Integer> rangeRates = List.of(100, 200, 500, 1000, 2000, 3000, 5000);

  @Option(
      names = "--range-span",
      description = "Keys per range request (default: ${DEFAULT-VALUE}).")
  int rangeSpan = 100;

  @Option(
      names = "--read-percent",
      description = "Reads in the mixed phase, in percent (default: ${DEFAULT-VALUE}).")
  int readPercent = 90;

  @Option(names = "--step", description = "Length of a sweep step (default: 10s).")
  Duration step = Duration.ofSeconds(10);

  @Option(
      names = "--duration",
      description = "Length of the sustained run at the best rate (default: 60s).")
  Duration duration = Duration.ofSeconds(60);

  @Option(
      names = "--warm-up",
      description = "Unmeasured run at the first rate before each sweep (default: 5s).")
  Duration warmUp = Duration.ofSeconds(5);

  @Option(
      names = "--p99-limit",
      description = "p99 a rate must stay under, ms (default: 5 for one node, else 10).")
  Double p99Limit;

  @Option(
      names = "--connections",
      description = "HTTP connections of the generator (default: ${DEFAULT-VALUE}).")
  int connections = 128;

  @Option(
      names = "--profile",
      description =
          "Phase to profile (cpu, alloc, lock flame graphs of node-0) at its best rate, or 'none'"
              + " (default: ${DEFAULT-VALUE}).")
  String profile = "put";

  @Option(
      names = "--node-jvm",
      split = " ",
      description = "JVM options of every node (default: ${DEFAULT-VALUE}).")
  List<String> nodeJvm =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "-XX:+UseG1GC",
          "--enable-native-access=ALL-UNNAMED",
          "-XX:+EnableDynamicAgentLoading",
          "-XX:+UnlockDiagnosticVMOptions",
          "-XX:+DebugNonSafepoints");

  @Option(
      names = "--node-flag",
      description = "Extra kvorum-node flag, repeatable, e.g. --node-flag=--sync-writes=true.")
  List<String> nodeFlags = new ArrayList<>();

  @Option(names = "--jar", description = "Node jar (default: ${DEFAULT-VALUE}).")
  Path jar = Path.of("node/target/kvorum-node.jar");

  @Option(names = "--out", description = "Results directory (default: bench/results/<timestamp>).")
  Path out;

  @Option(
      names = "--http-port",
      description = "First node's HTTP port (default: ${DEFAULT-VALUE}).")
  int httpPort = 18080;

  @Option(
      names = "--grpc-port",
      description = "First node's gRPC port (default: ${DEFAULT-VALUE}).")
  int grpcPort = 19090;

  @Option(names = "--command-line", hidden = true, description = "How this run was invoked.")
  String commandLine;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(
        new CommandLine(new BenchCommand())
            .registerConverter(Duration.class, DurationFormat::parse)
            .execute(args));
  }

  @Override
  public Integer call() throws Exception {
    for (String phase : phases) {
      if (!LOAD_PHASES.contains(phase) && !phase.equals("scan")) {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown phase: " + phase);
      }
    }
    if (!profile.equals("none") && !LOAD_PHASES.contains(profile)) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--profile: not a load phase: " + profile);
    }
    int replicas = from != null ? from : nodes;
    int quorum = ack != null ? ack : replicas / 2 + 1;
    double limit = p99Limit != null ? p99Limit : nodes == 1 ? 5 : 10;
    Path dir =
        out != null
            ? out
            : Path.of(
                "bench/results",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    Report report = new Report(dir, "kvorum benchmark, " + nodes + " node(s)");
    report.text(Environment.describe(commandLine, nodeJvm));
    report.text(
        String.format(
            Locale.ROOT,
            "**Setup**: %d node(s) on 127.0.0.1, %,d keys of %d bytes, ack=%d from=%d;"
                + " load from the open-loop generator (one Netty event loop, %d connections"
                + " spread over the nodes; latency from each request's due time); sweep steps"
                + " of %ds, sustained runs of %ds; a rate passes with p99 < %s ms, no errors and"
                + " at least 98%% of the rate delivered.",
            nodes,
            keys,
            valueSize,
            quorum,
            replicas,
            connections,
            step.toSeconds(),
            duration.toSeconds(),
            limit));
    Workload workload = new Workload(keys, valueSize, quorum, replicas);
    OUT.printf("results in %s%n", dir);
    try (BenchCluster cluster =
            BenchCluster.start(jar, dir, nodes, httpPort, grpcPort, nodeJvm, nodeFlags);
        OpenLoopClient client = new OpenLoopClient(cluster.httpAddresses())) {
      OUT.printf("cluster of %d up; loading %,d keys...%n", nodes, keys);
      PhaseResult load =
          client.runClosed("load", workload.load(), keys, 64, Duration.ofMinutes(30));
      OUT.print(Report.header() + Report.row(load, "load", Double.MAX_VALUE));
      if (load.errorCount() > 0) {
        throw new IllegalStateException("preload failed: " + load.errors());
      }
      report.text(
          String.format(
              Locale.ROOT,
              "Preload: %,d keys in %.1f s (%.0f writes/s, closed loop, 64 connections).",
              keys,
              load.sendWindow().toNanos() / 1e9,
              load.achievedRate()));
      List<Sweep> sweeps = new ArrayList<>();
      for (String phase : phases) {
        if (phase.equals("scan")) {
          continue;
        }
        RequestSource source = source(phase, workload);
        Sweep sweep =
            sweep(client, phase, source, phase.equals("range") ? rangeRates : rates, limit);
        sweeps.add(sweep);
        report.sweep(sweep, limit);
      }
      report.headline(limit).percentilePlot();
      if (phases.contains("scan")) {
        ScanResult scan = scan(cluster);
        report.text(
            String.format(
                Locale.ROOT,
                "## Range scan of every key%n%nOne `GET /v0/entities` over all %,d keys through"
                    + " node-0: %,d bytes in %.2f s = **%.0f MB/s**. node-0's heap in use:"
                    + " %,d MB before, at most %,d MB during the scan (sampled every 200 ms).",
                keys,
                scan.bytes(),
                scan.elapsed().toNanos() / 1e9,
                scan.megabytesPerSecond(),
                scan.heapBefore() >> 20,
                scan.heapMax() >> 20));
      }
      if (!profile.equals("none")) {
        profile(client, cluster, workload, sweeps, dir, report, limit);
      }
    }
    deleteTree(dir.resolve("data"));
    report.write();
    OUT.printf("report: %s%n", dir.resolve("report.md"));
    return 0;
  }

  /** The requests of a load phase; {@code phase} is one of {@link #LOAD_PHASES}. */
  private RequestSource source(String phase, Workload workload) {
    return switch (phase) {
      case "put" -> workload.puts();
      case "get" -> workload.gets();
      case "mixed" -> workload.mixed(readPercent);
      case "range" -> workload.ranges(rangeSpan);
      default -> throw new IllegalArgumentException("not a load phase: " + phase);
    };
  }

  private Sweep sweep(
      OpenLoopClient client,
      String phase,
      RequestSource source,
      List<Integer> stepRates,
      double limit) {
    OUT.printf("%n== %s ==%n", phase);
    client.runAtRate(
        phase + " warm-up", source, stepRates.get(0), warmUp, connections, Duration.ofSeconds(3));
    OUT.print(Report.header());
    List<PhaseResult> steps = new ArrayList<>();
    List<Integer> passed = new ArrayList<>();
    for (int rate : stepRates) {
      PhaseResult result =
          client.runAtRate(
              phase + "@" + rate, source, rate, step, connections, Duration.ofSeconds(3));
      steps.add(result);
      OUT.print(Report.row(result, "step", limit));
      if (!Report.passes(result, limit)) {
        break;
      }
      passed.add(rate);
    }
    for (int i = passed.size() - 1; i >= 0 && i >= passed.size() - 2; i--) {
      int rate = passed.get(i);
      PhaseResult sustained =
          client.runAtRate(
              phase + "@" + rate + " for " + duration.toSeconds() + "s",
              source,
              rate,
              duration,
              connections,
              Duration.ofSeconds(3));
      OUT.print(Report.row(sustained, "sustained", limit));
      if (Report.passes(sustained, limit)) {
        return new Sweep(phase, steps, sustained);
      }
      steps.add(sustained);
    }
    return new Sweep(phase, steps, null);
  }

  private ScanResult scan(BenchCluster cluster) throws Exception {
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
    try (OpenLoopClient client = new OpenLoopClient(List.of(address(cluster.uri(0, "/"))))) {
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
    return new ScanResult(result.bytesReceived(), result.sendWindow(), before, max.get());
  }

  private void profile(
      OpenLoopClient client,
      BenchCluster cluster,
      Workload workload,
      List<Sweep> sweeps,
      Path dir,
      Report report,
      double limit)
      throws Exception {
    Sweep target = sweeps.stream().filter(s -> s.phase().equals(profile)).findFirst().orElse(null);
    if (target == null) {
      report.text("No profile: phase " + profile + " did not run.");
      return;
    }
    // The best rate that held; when none did, the first step's, to show what stands in the way.
    double rate =
        target.sustained() != null
            ? target.sustained().requestedRate()
            : target.steps().get(0).requestedRate();
    RequestSource source = source(profile, workload);
    Profiler profiler = Profiler.unpack();
    long pid = cluster.pid(0);
    Duration window = duration.dividedBy(3);
    OUT.printf("%nprofiling node-0 (pid %d) during %s at %.0f req/s%n", pid, profile, rate);
    CompletableFuture<PhaseResult> run =
        CompletableFuture.supplyAsync(
            () ->
                client.runAtRate(
                    profile + "@" + (long) rate + " profiled",
                    source,
                    rate,
                    window.multipliedBy(3).plusSeconds(2),
                    connections,
                    Duration.ofSeconds(3)));
    Thread.sleep(1000);
    List<String> links = new ArrayList<>();
    for (String event : List.of("cpu", "alloc", "lock")) {
      Path html = dir.resolve("profile-" + profile + "-" + event + ".html");
      profiler.start(pid, event);
      Thread.sleep(window);
      profiler.stop(pid, html, "node-0 " + event + " during " + profile + " at " + (long) rate);
      links.add("[" + event + "](" + html.getFileName() + ")");
    }
    PhaseResult profiled = run.join();
    OUT.print(Report.row(profiled, "profiled", limit));
    report.text(
        "## Profiles\n\nnode-0 (one of the coordinators) during "
            + profile
            + " at "
            + (long) rate
            + " req/s, "
            + window.toSeconds()
            + " s per event: "
            + String.join(", ", links)
            + ". The load of the profiled run (the profiler's own cost included):\n\n"
            + Report.header()
            + Report.row(profiled, "profiled", limit));
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var paths = Files.walk(root)) {
        for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  private static InetSocketAddress address(URI uri) {
    return new InetSocketAddress(uri.getHost(), uri.getPort());
  }
}
