package io.kvorum.bench;

import io.kvorum.bench.cluster.BenchCluster;
import io.kvorum.bench.load.ConditionalWorkload;
import io.kvorum.bench.load.OpenLoopClient;
import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.measure.ProcFs;
import io.kvorum.bench.measure.Settler;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code bench/run.sh conditional}: conditional writes (SPEC §10) against plain writes on one local
 * cluster, at a fixed open-loop rate: plain PUTs, {@code If-None-Match: *} creates, {@code
 * If-Match} chains per connection (no contention) and {@code If-Match} on a few hot keys from every
 * connection (contention), each with its latency, answers by status, node CPU per request and the
 * round trips per request the nodes counted ({@code kvorum_paxos_*}); then the uncontended chains
 * swept through rising rates for the highest one whose p99 stays within the limit. Writes {@code
 * report.md} into the results directory.
 */
@Command(
    name = "conditional",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Benchmarks conditional writes against plain writes on a local cluster (issue 26) and",
      "writes bench/results/<timestamp>/report.md. Node JVM options, ports, --out and the jar",
      "come from bench/run.sh's options given before 'conditional'."
    })
final class ConditionalCommand implements Callable<Integer> {
  private static final String FIRST_LINE =
      "| phase | rate | achieved | p50 | p99 | p99.9 | max | 201 | 412 | 504 | other |"
          + " round trips/req | prepare | accept | commit | retries/req | node µs/req |\n"
          + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
          + " ---: | ---: | ---: | ---: | ---: |\n";

  @ParentCommand BenchCommand parent;

  @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

  @Option(names = "--ack", description = "Replicas that must answer (default: ${DEFAULT-VALUE}).")
  int ack = 2;

  @Option(names = "--from", description = "Replicas per key (default: ${DEFAULT-VALUE}).")
  int from = 3;

  @Option(names = "--value-size", description = "Value bytes (default: ${DEFAULT-VALUE}).")
  int valueSize = 1024;

  @Option(names = "--keys", description = "Keys of the plain phase (default: ${DEFAULT-VALUE}).")
  long keys = 100_000;

  @Option(
      names = "--hot-keys",
      description = "Keys every connection races on in the contended phase (default: 4).")
  int hotKeys = 4;

  @Option(
      names = "--rate",
      description = "The fixed rate (req/s) of the four phases (default: ${DEFAULT-VALUE}).")
  int rate = 100;

  @Option(
      names = "--sweep-rates",
      split = ",",
      description =
          "Rates the uncontended chains step through after the fixed-rate runs, until one"
              + " delivers under 90%% of its rate (default: ${DEFAULT-VALUE}; empty for none).")
  List<Integer> sweepRates = List.of(50, 100, 200, 300, 400, 600, 800, 1200);

  @Option(names = "--duration", description = "Length of each fixed-rate run (default: 30s).")
  Duration duration = Duration.ofSeconds(30);

  @Option(names = "--step", description = "Length of each sweep step (default: 15s).")
  Duration step = Duration.ofSeconds(15);

  @Option(
      names = "--warm-up",
      description =
          "Unmeasured load first, a quarter at --rate in each phase, for the JIT (default: 80s).")
  Duration warmUp = Duration.ofSeconds(80);

  @Option(
      names = "--connections",
      description = "Connections of the generator (default: ${DEFAULT-VALUE}).")
  int connections = 64;

  @Option(
      names = "--p99-limit",
      description = "p99 a sweep step must stay within, ms (default: ${DEFAULT-VALUE}).")
  double p99Limit = 10;

  @Option(
      names = "--settle",
      description = "Pause for RocksDB to settle before each run, at most (default: 20s).")
  Duration settleMax = Duration.ofSeconds(20);

  @Override
  public Integer call() throws Exception {
    ConditionalWorkload workload = new ConditionalWorkload(keys, valueSize, ack, from, hotKeys);
    Path dir = parent.resultsDir("conditional-");
    System.out.printf("results in %s%n", dir);
    Path jar = parent.firstJar();
    StringBuilder report = new StringBuilder("# kvorum conditional writes, ");
    report.append(nodes).append(" nodes\n\n");
    report.append(Environment.describe(parent.commandLine, parent.nodeJvm)).append("\n\n");
    try (BenchCluster cluster =
            BenchCluster.start(
                jar,
                dir,
                nodes,
                parent.httpPort,
                parent.grpcPort,
                parent.nodeJvm,
                parent.nodeFlags);
        OpenLoopClient client = new OpenLoopClient(cluster.httpAddresses())) {
      Settler settler = cluster.settler();
      Measurer measurer =
          new Measurer(
              new UsageMeter(ProcFs.system(), cluster.pids(), ProcessHandle.current().pid()),
              IntStream.range(0, nodes).mapToObj(cluster::gcLog).toList());
      PaxosCounters counters = new PaxosCounters(cluster);
      report.append(setup(workload));
      for (String phase : ConditionalWorkload.PHASES) {
        System.out.printf("warm-up: %s at %d/s%n", phase, rate);
        client.runAtRate(
            "warm-up " + phase,
            workload.source(phase),
            rate,
            warmUp.dividedBy(ConditionalWorkload.PHASES.size()),
            connections,
            Duration.ofSeconds(3));
      }
      report.append("## At ").append(rate).append("/s\n\n").append(FIRST_LINE);
      System.out.print(FIRST_LINE);
      for (String phase : ConditionalWorkload.PHASES) {
        settler.settle(Duration.ofSeconds(2), settleMax);
        String row = measured(client, measurer, counters, workload, phase, rate, duration).row();
        report.append(row);
        System.out.print(row);
      }
      report.append(sweep(client, measurer, counters, settler, workload));
    }
    JarBench.deleteTree(dir.resolve("data"));
    Files.writeString(dir.resolve("report.md"), report);
    System.out.printf("report: %s%n", dir.resolve("report.md"));
    return 0;
  }

  private String setup(ConditionalWorkload workload) {
    return String.format(
        Locale.ROOT,
        "**Setup**: %d nodes, ack=%d from=%d, values of %d bytes, %d connections spread over the"
            + " nodes (request i to node i mod %d), open loop (latency from each request's due"
            + " time), warm-up %d s unmeasured (a quarter in each phase at %d/s) before anything is"
            + " measured; the contended phase races on %d keys; each run after a settle pause of at"
            + " most %d s.%n%n",
        nodes,
        workload.ack(),
        workload.from(),
        workload.valueSize(),
        connections,
        nodes,
        warmUp.toSeconds(),
        rate,
        workload.hotKeys(),
        settleMax.toSeconds());
  }

  private String sweep(
      OpenLoopClient client,
      Measurer measurer,
      PaxosCounters counters,
      Settler settler,
      ConditionalWorkload workload)
      throws InterruptedException, IOException {
    if (sweepRates.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("\n## Uncontended chains at rising rates\n\n");
    out.append(FIRST_LINE);
    System.out.print(FIRST_LINE);
    Integer held = null;
    List<Integer> tried = new ArrayList<>();
    for (int r : sweepRates) {
      settler.settle(Duration.ofSeconds(2), settleMax);
      Measured run = measured(client, measurer, counters, workload, "chain", r, step);
      out.append(run.row());
      System.out.print(run.row());
      tried.add(r);
      PhaseResult load = run.run().load();
      if (Table.passes(load, p99Limit)) {
        held = r;
      }
      if (load.achievedRate() < 0.9 * r) {
        break; // past what the cluster answers: higher rates only queue longer
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%nHighest rate of uncontended conditional writes with p99 ≤ %s ms, no error and ≥ 98%%"
                + " delivered (steps of %d s; tried %s, stopping after the first that delivered"
                + " under 90%%): **%s**.%n",
            Table.number(p99Limit),
            step.toSeconds(),
            tried,
            held == null ? "none of them" : String.format(Locale.ROOT, "%,d/s", held)));
    return out.toString();
  }

  /** A run measured, as its row of the report. */
  private record Measured(Run run, String row) {}

  private Measured measured(
      OpenLoopClient client,
      Measurer measurer,
      PaxosCounters counters,
      ConditionalWorkload workload,
      String phase,
      int r,
      Duration length)
      throws IOException, InterruptedException {
    PaxosCounters.Snapshot before = counters.snapshot();
    Run run =
        measurer.measure(
            () ->
                client.runAtRate(
                    phase + "@" + r,
                    workload.source(phase),
                    r,
                    length,
                    connections,
                    Duration.ofSeconds(5)));
    return new Measured(run, row(phase, run, counters.snapshot().minus(before)));
  }

  private static String row(String phase, Run run, PaxosCounters.Snapshot paxos) {
    PhaseResult load = run.load();
    long answered = load.answered();
    long preconditionFailed = load.errors().getOrDefault("status 412", 0L);
    long timedOut = load.errors().getOrDefault("status 504", 0L);
    String other =
        load.errors().entrySet().stream()
            .filter(e -> !e.getKey().equals("status 412") && !e.getKey().equals("status 504"))
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getValue() + " " + e.getKey())
            .collect(Collectors.joining(", "));
    boolean plain = phase.equals("plain");
    return String.format(
        Locale.ROOT,
        "| %s | %.0f | %.0f | %s | %s | %s | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s"
            + " |%n",
        phase,
        load.requestedRate(),
        load.achievedRate(),
        Table.ms(load.latency().getValueAtPercentile(50)),
        Table.ms(load.latency().getValueAtPercentile(99)),
        Table.ms(load.latency().getValueAtPercentile(99.9)),
        Table.ms(load.latency().getMaxValue()),
        load.succeeded(),
        preconditionFailed,
        timedOut,
        other.isEmpty() ? "0" : other,
        plain ? "1 (write)" : Table.number(paxos.roundTrips() / (double) answered),
        plain ? "–" : Table.number(paxos.prepares() / (double) answered),
        plain ? "–" : Table.number(paxos.accepts() / (double) answered),
        plain ? "–" : Table.number(paxos.commits() / (double) answered),
        plain ? "–" : Table.number(paxos.retries() / (double) answered),
        Table.number(run.nodeMicros()));
  }
}
