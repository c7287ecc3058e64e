package io.kvorum.bench;

import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.load.OpenLoopGenerator;
import io.kvorum.bench.load.Workload;
import io.kvorum.bench.report.CostHeadline;
import io.kvorum.bench.report.Headline;
import io.kvorum.bench.report.JarResults;
import io.kvorum.bench.report.Report;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.wrk2.Wrk2Generator;
import io.kvorum.node.core.DurationFormat;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench/run.sh}: for each node jar, starts a local kvorum cluster, preloads it, sweeps (or
 * holds) the rate of each phase with the open-loop generator or wrk2, measures the processes' CPU,
 * context switches and GC pauses of every run, profiles one phase with async-profiler; optionally
 * measures nginx's ceiling first; writes one report with the headline against issue 10's targets.
 */
@Command(
    name = "bench/run.sh",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {CalibrateCommand.class, ConditionalCommand.class, FeedsCommand.class},
    description = {
      "Benchmarks a local kvorum cluster at constant request rates (open loop) and writes",
      "bench/results/<timestamp>/report.md with tables, plots and flame graphs."
    })
public final class BenchCommand implements Callable<Integer> {
  private static final PrintStream OUT = System.out;

  /** The phases run at a rate (swept or held), which the profile can repeat. */
  static final List<String> LOAD_PHASES = List.of("put", "get", "mixed", "range");

  private static final List<String> PHASES =
      List.of("idle", "warmup", "put", "get", "mixed", "range", "saturation", "scan");

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
      description =
          "Phases to run, in this order, of idle,warmup,put,get,mixed,range,saturation,scan"
              + " (default: all; idle measures just after start and again at the end, warmup"
              + " runs first, before the preload, and the scan after the others).")
  List<String> phases = PHASES;

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
      names = "--hold-rate",
      description =
          "Instead of sweeping, hold each load phase at this rate (req/s) for --duration and give"
              + " the verdict, e.g. --hold-rate 20000 --duration 60s.")
  Integer holdRate;

  @Option(
      names = "--hold-rates",
      split = ",",
      description =
          "Instead of sweeping, hold each load phase at each of these rates (req/s) in turn, each"
              + " after a warm-up and a settle pause, for --duration, e.g. --hold-rates"
              + " 1000,4000,12000.")
  List<Integer> holdRates = List.of();

  @Mixin StartupOptions startup = new StartupOptions();

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
      description =
          "Length of a held run: the best rate of a sweep, or --hold-rate (default: 60s).")
  Duration duration = Duration.ofSeconds(60);

  @Option(
      names = "--warm-up",
      description = "Unmeasured run at the first (or held) rate before each phase (default: 5s).")
  Duration warmUp = Duration.ofSeconds(5);

  @Option(
      names = "--settle",
      description =
          "Least pause before a phase's measured runs and before a held run (default: 10s).")
  Duration settle = Duration.ofSeconds(10);

  @Option(
      names = "--settle-max",
      description =
          "Longest pause: after --settle, wait until RocksDB has no compaction pending and no"
              + " flush or compaction running, at most this long in all (default: 60s).")
  Duration settleMax = Duration.ofSeconds(60);

  @Option(
      names = "--p99-limit",
      description = "p99 a rate must stay at or under, ms (default: 5 for one node, else 10).")
  Double p99Limit;

  @Option(
      names = "--connections",
      description = "HTTP connections of the generator (default: ${DEFAULT-VALUE}).")
  int connections = 128;

  @Option(
      names = "--routing",
      description =
          "Send each put, get and mixed request to a node that holds its key's first replica, as"
              + " the placement-aware client does (the builtin generator only; default: off,"
              + " request i to node i mod nodes).")
  boolean routing;

  @Option(
      names = "--generator",
      description =
          "Load generator: builtin (the runner's own) or wrk2 ($WRK2 or wrk2 on the PATH; one"
              + " process per node) (default: ${DEFAULT-VALUE}).")
  String generatorKind = "builtin";

  @Option(
      names = "--saturation-connections",
      description =
          "Connections of the saturation phase, PUT in a closed loop (default: ${DEFAULT-VALUE}).")
  int saturationConnections = 64;

  @Option(
      names = "--saturation-duration",
      description = "Length of the saturation phase (default: 20s).")
  Duration saturationDuration = Duration.ofSeconds(20);

  @Option(
      names = "--calibrate",
      split = ",",
      description =
          "First measure nginx answering 204 at these rates (req/s, --step each) with the same"
              + " generator, for the ceiling in the headline, e.g. --calibrate 20000,40000,80000.")
  List<Integer> calibrate = List.of();

  @Option(
      names = "--nginx-port",
      description = "Port of nginx for --calibrate (default: ${DEFAULT-VALUE}).")
  int nginxPort = 18999;

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

  @Option(
      names = "--jar",
      description =
          "Node jar, as PATH or LABEL=PATH; repeat it to run the same phases with each jar in"
              + " turn and compare them in one report (default: node/target/kvorum-node.jar).")
  List<String> jarSpecs = List.of("node/target/kvorum-node.jar");

  @Option(
      names = "--jar-jvm",
      description =
          "More JVM options for the nodes of one --jar label, as LABEL=OPTIONS, after --node-jvm;"
              + " repeatable. The same jar under two labels A/B-tests a run-time switch, e.g."
              + " --jar before=J --jar-jvm before=-Dkvorum.threads=before --jar after=J.")
  List<String> jarJvmSpecs = new ArrayList<>();

  @Option(
      names = "--jar-flag",
      description =
          "More kvorum-node flags for the nodes of one --jar label, as LABEL=FLAGS, after"
              + " --node-flag; repeatable. E.g. the same jar with and without mutual TLS:"
              + " --jar plain=J --jar mtls=J --jar-flag 'mtls=--tls-cert=c.pem --tls-key=k.pem"
              + " --tls-ca=ca.pem'.")
  List<String> jarFlagSpecs = new ArrayList<>();

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

  private Path wrk2;
  private StartupPlan startupPlan;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(
        new CommandLine(new BenchCommand())
            .registerConverter(Duration.class, DurationFormat::parse)
            .execute(args));
  }

  /** The jar of the first {@code --jar}: the one the subcommands run. */
  Path firstJar() {
    return Path.of(jarSpecs.get(0).replaceFirst("^[^=/]*=", ""));
  }

  /** The results directory, created: {@code --out}, or bench/results/PREFIX + a timestamp. */
  Path resultsDir(String prefix) throws IOException {
    Path dir =
        out != null
            ? out
            : Path.of(
                "bench/results",
                prefix
                    + LocalDateTime.now(ZoneId.systemDefault())
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    return Files.createDirectories(dir);
  }

  @Override
  public Integer call() throws Exception {
    Plan plan = validate();
    int replicas = from != null ? from : nodes;
    int quorum = ack != null ? ack : replicas / 2 + 1;
    Workload workload = new Workload(keys, valueSize, quorum, replicas, readPercent, rangeSpan);
    Path dir = resultsDir("");
    Report report = new Report(dir, "kvorum benchmark, " + nodes + " node(s)");
    report.text(Environment.describe(commandLine, nodeJvm));
    report.text(setup(plan, workload, dir));
    report.markHeadline();
    OUT.printf("results in %s%n", dir);
    List<Run> nginx = List.of();
    if (!calibrate.isEmpty()) {
      nginx = Calibration.run(this, plan, workload, dir, report);
    }
    List<JarResults> results = new ArrayList<>();
    for (Jar jar : jars()) {
      Path jarDir = jars().size() == 1 ? dir : dir.resolve(jar.label());
      results.add(new JarBench(this, plan, workload, jar, jarDir, report).run());
    }
    boolean heap = nodeJvm.contains("-Xmx1g") || nodeJvm.contains("-Xmx1024m");
    report.headline(
        "## Headline\n\n"
            + Headline.targetTable(
                new Headline.Setup(nodes, quorum, replicas, valueSize, heap), results, nginx)
            + "\nThe held run of every phase"
            + (results.size() > 1 ? " for each jar" : "")
            + " (the last run tried when none held) and the saturation run, with what each"
            + " cost:\n\n"
            + Headline.comparison(results, plan.p99LimitMillis())
            + (CostHeadline.applies(results)
                ? "\n### The cost at the rates clusters run\n\n"
                    + CostHeadline.table(results, nginx, plan.p99LimitMillis())
                : ""));
    report.write();
    OUT.printf("report: %s%n", dir.resolve("report.md"));
    return 0;
  }

  /** The options checked together; the plans of the run. */
  Plan validate() {
    CommandLine cli = new CommandLine(this);
    for (String phase : phases) {
      if (!PHASES.contains(phase)) {
        throw new CommandLine.ParameterException(cli, "unknown phase: " + phase);
      }
    }
    if (!profile.equals("none") && !LOAD_PHASES.contains(profile)) {
      throw new CommandLine.ParameterException(cli, "--profile: not a load phase: " + profile);
    }
    switch (generatorKind) {
      case "builtin" -> wrk2 = null;
      case "wrk2" -> {
        try {
          wrk2 = Wrk2Generator.locate(System.getenv());
        } catch (IllegalStateException e) {
          throw new CommandLine.ParameterException(cli, e.getMessage(), e);
        }
      }
      default ->
          throw new CommandLine.ParameterException(
              cli, "--generator: builtin or wrk2, not " + generatorKind);
    }
    if (routing && wrk2 != null) {
      throw new CommandLine.ParameterException(
          cli, "--routing needs the builtin generator: wrk2 sends request i to node i mod nodes");
    }
    if (holdRate != null && !holdRates.isEmpty()) {
      throw new CommandLine.ParameterException(
          cli, "--hold-rate and --hold-rates: give one (--hold-rate N is --hold-rates N)");
    }
    try {
      jars();
      startupPlan = startup.plan();
      return new Plan(
          rates,
          rangeRates,
          holdRate != null ? List.of(holdRate) : holdRates,
          warmUp,
          step,
          duration,
          settle,
          settleMax,
          p99Limit != null ? p99Limit : nodes == 1 ? 5 : 10,
          saturationConnections,
          saturationDuration);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage(), e);
    }
  }

  private String setup(Plan plan, Workload workload, Path dir) {
    String load =
        wrk2 != null
            ? Wrk2Generator.describe(wrk2, connections, nodes)
            : OpenLoopGenerator.describe(connections, nodes, routing);
    String runs =
        plan.holds()
            ? String.format(
                Locale.ROOT,
                "each phase held at %s req/s in turn, %d s each",
                plan.holdRates().stream()
                    .map(r -> String.format(Locale.ROOT, "%,d", r))
                    .collect(Collectors.joining(", ")),
                duration.toSeconds())
            : String.format(
                Locale.ROOT,
                "sweep steps of %d s, the best rate held %d s",
                step.toSeconds(),
                duration.toSeconds());
    return String.format(
            Locale.ROOT,
            "**Setup**: %d node(s) on 127.0.0.1, %,d keys of %d bytes, ack=%d from=%d; load from %s;"
                + " %s; a rate passes with p99 ≤ %s ms, no errors and at least 98%% of the rate"
                + " delivered. Before a phase's measured runs and before a held run the runner waits"
                + " %d s, then until RocksDB is quiet (at most %d s in all). Every node logs its GC to"
                + " `gc-node-<i>.log`. CPU per request: the nodes' (and all processes', the"
                + " generator's included) CPU time over the run divided by the answers; context"
                + " switches: the nodes' threads', likewise. Results in `%s`.",
            nodes,
            keys,
            valueSize,
            workload.ack(),
            workload.from(),
            load,
            runs,
            plan.p99LimitMillis(),
            settle.toSeconds(),
            settleMax.toSeconds(),
            dir)
        + startup.describe(phases);
  }

  /**
   * A node jar, its label in the report and the results directory, and the JVM options its nodes
   * get besides {@code --node-jvm}.
   */
  /**
   * @param jvm more JVM options for its nodes ({@code --jar-jvm})
   * @param flags more kvorum-node flags for its nodes ({@code --jar-flag})
   */
  record Jar(String label, Path path, List<String> jvm, List<String> flags) {}

  /** The jars of {@code --jar}, each labelled by LABEL= or its file name. */
  List<Jar> jars() {
    List<Jar> jars = new ArrayList<>();
    for (String spec : jarSpecs) {
      int eq = spec.indexOf('=');
      Path path = Path.of(eq < 0 ? spec : spec.substring(eq + 1));
      String label =
          eq < 0
              ? path.getFileName().toString().replaceFirst("\\.jar$", "")
              : spec.substring(0, eq);
      if (!label.matches("[A-Za-z0-9._-]+")) {
        throw new IllegalArgumentException(
            "--jar " + spec + ": a label is letters, digits, '.', '_' and '-'");
      }
      if (jars.stream().anyMatch(j -> j.label().equals(label))) {
        throw new IllegalArgumentException(
            "--jar " + spec + ": label " + label + " given twice (use LABEL=PATH)");
      }
      jars.add(new Jar(label, path, forLabel(jarJvmSpecs, label), forLabel(jarFlagSpecs, label)));
    }
    checkLabels("--jar-jvm", jarJvmSpecs, jars);
    checkLabels("--jar-flag", jarFlagSpecs, jars);
    return jars;
  }

  private static void checkLabels(String option, List<String> specs, List<Jar> jars) {
    for (String spec : specs) {
      String label = spec.substring(0, Math.max(0, spec.indexOf('=')));
      if (jars.stream().noneMatch(j -> j.label().equals(label))) {
        throw new IllegalArgumentException(
            option + " " + spec + ": LABEL=OPTIONS, LABEL one of the --jar labels");
      }
    }
  }

  /**
   * The options {@code specs} ({@code LABEL=OPTIONS …}) give the nodes of {@code label}, in order.
   */
  private static List<String> forLabel(List<String> specs, String label) {
    List<String> options = new ArrayList<>();
    for (String spec : specs) {
      if (spec.startsWith(label + "=")) {
        for (String option : spec.substring(label.length() + 1).split(" ")) {
          if (!option.isBlank()) {
            options.add(option);
          }
        }
      }
    }
    return options;
  }

  /** The generator this run uses, sending to {@code targets}; its files go into {@code dir}. */
  LoadGenerator generator(Path dir, Workload workload, List<InetSocketAddress> targets)
      throws IOException {
    return wrk2 != null
        ? Wrk2Generator.create(wrk2, dir, workload, targets, connections)
        : new OpenLoopGenerator(
            targets,
            workload,
            connections,
            routing ? IntStream.range(0, nodes).mapToObj(i -> "node-" + i).toList() : null);
  }

  /** The idle and warm-up phases' plan, once {@link #validate} has run. */
  StartupPlan startupPlan() {
    return startupPlan;
  }

  boolean wrk2() {
    return wrk2 != null;
  }
}
