package io.kvorum.bench;

import io.kvorum.api.ChangeEvent;
import io.kvorum.api.ChangeWatch;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.bench.cluster.BenchCluster;
import io.kvorum.bench.measure.ProcFs;
import io.kvorum.bench.measure.Usage;
import io.kvorum.bench.measure.UsageMeter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code bench/run.sh feeds}: change feeds (SPEC §12) on a local cluster. {@code --feeds} feeds
 * split the key space between them (feed i follows the keys {@code f/i/…}, so each write appears in
 * exactly one), writes at {@code --rate} per second (open loop, {@code ack=2 from=3}) spread over
 * them, and for each write the time from its acknowledgement reaching the writer to its event
 * reaching its feed; the nodes' CPU per write meanwhile. Then {@code --idle-feeds} feeds opened on
 * an idle cluster, and the nodes' heap and resident memory before and after (each after a full GC).
 * Writes {@code report.md} into the results directory.
 */
@Command(
    name = "feeds",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Benchmarks change feeds on a local cluster (issue 43) and writes",
      "bench/results/feeds-<timestamp>/report.md. Node JVM options, ports, --out and the jar come",
      "from bench/run.sh's options given before 'feeds'."
    })
final class FeedsCommand implements Callable<Integer> {
  private static final Consistency QUORUM = Consistency.of(2, 3);
  private static final Duration IDLE_WINDOW = Duration.ofSeconds(10);

  @ParentCommand BenchCommand parent;

  @Option(names = "--nodes", description = "Cluster size (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

  @Option(names = "--feeds", description = "Feeds open while writing (default: ${DEFAULT-VALUE}).")
  int feeds = 100;

  @Option(names = "--rate", description = "Writes a second (default: ${DEFAULT-VALUE}).")
  int rate = 1000;

  @Option(names = "--value-size", description = "Value bytes (default: ${DEFAULT-VALUE}).")
  int valueSize = 1024;

  @Option(names = "--warm-up", description = "Writes not measured first (default: 60s).")
  Duration warmUp = Duration.ofSeconds(60);

  @Option(names = "--duration", description = "Writes measured (default: 60s).")
  Duration duration = Duration.ofSeconds(60);

  @Option(
      names = "--idle-feeds",
      description = "Feeds opened on the idle cluster for memory (default: ${DEFAULT-VALUE}).")
  int idleFeeds = 1000;

  private final Map<Long, Long> acknowledged = new ConcurrentHashMap<>();
  private final Map<Long, Long> delivered = new ConcurrentHashMap<>();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong failedWrites = new AtomicLong();

  @Override
  public Integer call() throws Exception {
    Path dir = parent.resultsDir("feeds-");
    System.out.printf("results in %s%n", dir);
    Path jar = parent.firstJar();
    StringBuilder report = new StringBuilder("# kvorum change feeds, ");
    report.append(nodes).append(" nodes\n\n");
    report.append(Environment.describe(parent.commandLine, parent.nodeJvm)).append("\n\n");
    try (BenchCluster cluster =
        BenchCluster.start(
            jar, dir, nodes, parent.httpPort, parent.grpcPort, parent.nodeJvm, parent.nodeFlags)) {
      UsageMeter meter =
          new UsageMeter(ProcFs.system(), cluster.pids(), ProcessHandle.current().pid());
      report.append(latency(cluster, meter));
      report.append(memory(cluster, meter));
    }
    JarBench.deleteTree(dir.resolve("data"));
    Files.writeString(dir.resolve("report.md"), report);
    System.out.printf("report: %s%n", dir.resolve("report.md"));
    return 0;
  }

  private String latency(BenchCluster cluster, UsageMeter meter) throws Exception {
    byte[] value = "v".repeat(valueSize).getBytes(StandardCharsets.UTF_8);
    try (KvorumClient readers = client(cluster, feeds + 16);
        KvorumClient writer = client(cluster, 256)) {
      List<ChangeWatch> open = new ArrayList<>();
      for (int i = 0; i < feeds; i++) {
        open.add(readers.watch(prefix(i), successor(prefix(i)), null, this::delivered));
      }
      Thread.sleep(3_000);
      System.out.printf("%d feeds open; warm-up: %d writes/s for %s%n", feeds, rate, warmUp);
      write(writer, value, -1, warmUp);
      acknowledged.clear();
      delivered.clear();
      duplicates.set(0);
      failedWrites.set(0);
      System.out.printf("measured: %d writes/s for %s%n", rate, duration);
      UsageMeter.Sample before = meter.sample();
      long written = write(writer, value, 0, duration);
      UsageMeter.Sample after = meter.sample();
      Thread.sleep(10_000); // the last events' watermark
      open.forEach(ChangeWatch::close);
      return latencyReport(written, UsageMeter.between(before, after));
    }
  }

  /** Writes at {@link #rate} for {@code length}; sequence numbers from {@code first} (or none). */
  private long write(KvorumClient writer, byte[] value, long first, Duration length)
      throws InterruptedException {
    long count = length.toNanos() * rate / 1_000_000_000L;
    AtomicLong next = new AtomicLong();
    ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
    try {
      ticks.scheduleAtFixedRate(
          () -> {
            long i = next.getAndIncrement();
            if (i >= count) {
              return;
            }
            long seq = first < 0 ? -1 - i : first + i;
            writer
                .putAsync(key(seq), value, QUORUM, null)
                .whenComplete(
                    (etag, error) -> {
                      if (error != null) {
                        failedWrites.incrementAndGet();
                      } else if (seq >= 0) {
                        acknowledged.put(seq, System.nanoTime());
                      }
                    });
          },
          0,
          1_000_000_000L / rate,
          TimeUnit.NANOSECONDS);
      while (next.get() < count) {
        Thread.sleep(100);
      }
    } finally {
      ticks.shutdown();
    }
    Thread.sleep(2_000); // the last answers
    return count;
  }

  private void delivered(ChangeEvent event) {
    if (event.kind() != ChangeEvent.Kind.PUT) {
      return;
    }
    String key = event.keyUtf8();
    long seq = Long.parseLong(key.substring(key.lastIndexOf('/') + 1));
    if (delivered.putIfAbsent(seq, System.nanoTime()) != null) {
      duplicates.incrementAndGet();
    }
  }

  private String latencyReport(long written, Usage usage) {
    Histogram micros = new Histogram(3);
    long missing = 0;
    long beforeAck = 0;
    for (Map.Entry<Long, Long> ack : acknowledged.entrySet()) {
      Long event = delivered.get(ack.getKey());
      if (event == null) {
        missing++;
        continue;
      }
      long nanos = event - ack.getValue();
      if (nanos < 0) {
        beforeAck++;
      }
      micros.recordValue(Math.max(0, nanos) / 1_000);
    }
    String row =
        String.format(
            Locale.ROOT,
            "| %,d | %,d | %,d | %s | %s | %s | %s | %,d | %,d | %,d | %.0f |%n",
            written,
            acknowledged.size(),
            failedWrites.get(),
            ms(micros.getValueAtPercentile(50)),
            ms(micros.getValueAtPercentile(99)),
            ms(micros.getValueAtPercentile(99.9)),
            ms(micros.getMaxValue()),
            missing,
            beforeAck,
            duplicates.get(),
            usage.nodeMicrosPer(written));
    System.out.print(row);
    return String.format(
            Locale.ROOT,
            "## Acknowledgement to event, %d feeds, %,d writes/s%n%n"
                + "Each feed follows 1/%d of the keys; a write's latency is from its answer reaching"
                + " the writer to its event reaching its feed (0 when the event came first). Warm-up"
                + " %d s, measured %d s, ack=2 from=3, values of %d bytes.%n%n"
                + "| writes | acknowledged | failed | p50 | p99 | p99.9 | max | never delivered |"
                + " event before the answer | duplicates | node µs/write |%n"
                + "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |%n",
            feeds,
            rate,
            feeds,
            warmUp.toSeconds(),
            duration.toSeconds(),
            valueSize)
        + row
        + "\n";
  }

  private String memory(BenchCluster cluster, UsageMeter meter) throws Exception {
    Thread.sleep(10_000);
    double idle = cores(meter, IDLE_WINDOW);
    long[] before = memory(cluster, "before");
    List<ChangeWatch> open = new ArrayList<>();
    try (KvorumClient readers = client(cluster, idleFeeds + 16)) {
      for (int i = 0; i < idleFeeds; i++) {
        open.add(readers.watch(prefix(i), successor(prefix(i)), null, event -> {}));
      }
      Thread.sleep(15_000);
      double withFeeds = cores(meter, IDLE_WINDOW);
      long[] with = memory(cluster, "with " + idleFeeds + " feeds");
      long failed = open.stream().filter(w -> w.ended().isDone()).count();
      open.forEach(ChangeWatch::close);
      return String.format(
          Locale.ROOT,
          "## %,d idle feeds%n%n"
              + "Opened on the idle cluster after the run above, spread by the client over the"
              + " nodes; the nodes' heap in use (after a full GC, `jcmd GC.run`) and resident"
              + " memory, summed over the nodes, 15 s after opening; the nodes' CPU over %d s"
              + " without and with them (cores, summed over the nodes).%n%n"
              + "| | heap | resident | CPU |%n| --- | ---: | ---: | ---: |%n"
              + "| before | %s | %s | %.3f cores |%n| with the feeds | %s | %s | %.3f cores |%n"
              + "| per feed | %,.1f KiB | %,.1f KiB | %.1f µs/s |%n%n"
              + "Feeds that had ended by then: %d.%n",
          idleFeeds,
          IDLE_WINDOW.toSeconds(),
          mib(before[0]),
          mib(before[1]),
          idle,
          mib(with[0]),
          mib(with[1]),
          withFeeds,
          (with[0] - before[0]) / 1024.0 / idleFeeds,
          (with[1] - before[1]) / 1024.0 / idleFeeds,
          (withFeeds - idle) * 1_000_000 / idleFeeds,
          failed);
    }
  }

  /** The nodes' CPU over {@code window}, in cores. */
  private static double cores(UsageMeter meter, Duration window) throws InterruptedException {
    UsageMeter.Sample before = meter.sample();
    Thread.sleep(window.toMillis());
    Usage usage = UsageMeter.between(before, meter.sample());
    double cores = usage.nodeCpuNanos() / 1e9 / window.toSeconds();
    System.out.printf("nodes' CPU: %.3f cores%n", cores);
    return cores;
  }

  /** The nodes' heap in use after a full GC, and their resident memory, in bytes. */
  private long[] memory(BenchCluster cluster, String when)
      throws IOException, InterruptedException {
    long heap = 0;
    long resident = 0;
    for (int node = 0; node < cluster.size(); node++) {
      long pid = cluster.pid(node);
      new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
              String.valueOf(pid),
              "GC.run")
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor();
      heap += cluster.heapUsed(node);
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          resident += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    }
    System.out.printf("memory %s: heap %s, resident %s%n", when, mib(heap), mib(resident));
    return new long[] {heap, resident};
  }

  private static KvorumClient client(BenchCluster cluster, int inFlight) {
    List<String> seeds = new ArrayList<>();
    for (InetSocketAddress address : cluster.httpAddresses()) {
      seeds.add(address.getHostString() + ":" + address.getPort());
    }
    return KvorumClient.builder().seeds(seeds.toArray(String[]::new)).maxInFlight(inFlight).build();
  }

  private static byte[] prefix(int feed) {
    return ("f/" + feed + "/").getBytes(StandardCharsets.UTF_8);
  }

  /** The first key after every key that starts with {@code prefix}. */
  private static byte[] successor(byte[] prefix) {
    byte[] end = prefix.clone();
    end[end.length - 1]++;
    return end;
  }

  private byte[] key(long seq) {
    long feed = Math.floorMod(seq, (long) feeds);
    return ("f/" + feed + "/" + seq).getBytes(StandardCharsets.UTF_8);
  }

  private static String ms(long micros) {
    return String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.1f MiB", bytes / 1024.0 / 1024.0);
  }
}
