package io.kvorum.node.cli;

import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.config.NodeOptions;
import io.kvorum.node.core.Directories;
import io.kvorum.node.core.LoopbackPorts;
import io.kvorum.node.server.KvorumServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node train}: the training run of the JDK's ahead-of-time cache (JEP 483, 514, 515).
 * Starts a throwaway cluster of three nodes in this JVM (loopback ports, a temporary data
 * directory), sends it the requests a cluster serves (writes, reads, deletes, compare-and-set,
 * ranges) for {@code --seconds}, stops it and exits. Run with {@code -XX:AOTCacheOutput=FILE}, the
 * JVM then writes the classes it loaded and linked, and the profiles its compilers gathered, to
 * FILE; nodes started with {@code -XX:AOTCache=FILE} on the same JDK and the same jar are ready
 * sooner and warm up sooner. The build does this for {@code bin/kvorum}, the image build for its
 * nodes (docs/decisions/aot-cache-trained-at-build-time.md).
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Runs a short workload on a throwaway cluster in this JVM, to train an AOT cache.",
    description = {
      "",
      "Three nodes in this JVM on loopback ports, data in a temporary directory deleted at the"
          + " end; writes, reads, deletes, compare-and-set and ranges for --seconds. Run it as"
          + " `java -XX:AOTCacheOutput=FILE --enable-native-access=ALL-UNNAMED -jar"
          + " kvorum-node.jar train` (JDK 25 or newer): the JVM writes its ahead-of-time cache to"
          + " FILE at exit, and FILE.java names the JDK and the jar that can use it.",
      ""
    },
    footer = {"", "Exit codes: 0 trained, 1 the cluster did not serve the workload."})
final class TrainCommand implements Callable<Integer> {
  private static final int NODES = 3;
  private static final int IN_FLIGHT = 16;
  private static final int KEYS = 5_000;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  @Spec CommandSpec spec;

  @Option(
      names = "--seconds",
      defaultValue = "20",
      paramLabel = "N",
      description = "How long the workload runs. Default: ${DEFAULT-VALUE}.")
  int seconds;

  private final AtomicLong served = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  @Override
  public Integer call() throws Exception {
    if (seconds < 1) {
      throw new ConfigException("--seconds", String.valueOf(seconds), "must be at least 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    // The nodes' INFO lines (started, ready, stopped, for each of three) say nothing here; a
    // warning says it comes from the training run.
    System.setProperty("KVORUM_LOG_LEVEL", "WARN");
    System.setProperty("kvorum.node.id", "train");
    Path data = Files.createTempDirectory("kvorum-train-");
    List<KvorumServer> nodes = new ArrayList<>();
    long started = System.nanoTime();
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
      List<NodeConfig> configs = configs(data);
      for (NodeConfig config : configs) {
        nodes.add(KvorumServer.start(config));
      }
      nodes.forEach(KvorumServer::awaitReady);
      List<URI> bases =
          nodes.stream()
              .map(n -> URI.create("http://127.0.0.1:" + n.httpAddress().getPort()))
              .toList();
      run(http, bases);
    } finally {
      nodes.reversed().forEach(KvorumServer::shutdown);
      Directories.removeTree(data);
    }
    long total = served.get() + failed.get();
    out.printf(
        "kvorum-node train: %d requests in %.1f s, %d answered with an error%n",
        total, (System.nanoTime() - started) / 1e9, failed.get());
    out.flush();
    if (served.get() == 0 || failed.get() > total / 10) {
      spec.commandLine().getErr().println("kvorum-node train: the cluster did not serve the load");
      return ExitCodes.FAILURE;
    }
    cacheOutput().ifPresent(TrainCommand::nameTheJdkAndJar);
    return ExitCodes.OK;
  }

  /** Three nodes' configurations, from the same flags an operator gives (parsed the same way). */
  private static List<NodeConfig> configs(Path data) {
    List<Integer> ports = LoopbackPorts.pick(2 * NODES);
    List<LoopbackNode> nodes = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      nodes.add(new LoopbackNode("train-" + i, ports.get(2 * i), ports.get(2 * i + 1)));
    }
    String peers = LoopbackNode.peers(nodes);
    List<NodeConfig> configs = new ArrayList<>();
    for (LoopbackNode node : nodes) {
      List<String> flags = new ArrayList<>(node.flags(data, peers));
      flags.addAll(List.of("--io-threads", "1"));
      NodeOptions options = new NodeOptions();
      new CommandLine(options).parseArgs(flags.toArray(String[]::new));
      configs.add(options.toConfig());
    }
    return configs;
  }

  /** Requests of every kind, {@link #IN_FLIGHT} at a time, until {@link #seconds} are over. */
  private void run(HttpClient http, List<URI> bases) throws InterruptedException {
    byte[] value = new byte[1024];
    Arrays.fill(value, (byte) 'v');
    Semaphore window = new Semaphore(IN_FLIGHT);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    for (long n = 0; System.nanoTime() < end; n++) {
      window.acquire();
      URI base = bases.get((int) (n % bases.size()));
      String key = "k" + ThreadLocalRandom.current().nextInt(KEYS);
      send(http, request(base, key, n, value)).whenComplete((status, e) -> window.release());
    }
    window.acquire(IN_FLIGHT);
  }

  /** Mostly writes and reads, as clusters serve; now and then each of the other requests. */
  private static HttpRequest request(URI base, String key, long n, byte[] value) {
    URI entity = base.resolve("/v0/entity?id=" + key + "&ack=2&from=3");
    HttpRequest.Builder request = HttpRequest.newBuilder(entity).timeout(REQUEST_TIMEOUT);
    return switch ((int) (n % 20)) {
      case 0 -> request.DELETE().build();
      case 1 -> request.header("If-None-Match", "*").PUT(body(value)).build();
      case 2 -> request.header("If-Match", "\"1\"").PUT(body(value)).build();
      case 3 ->
          HttpRequest.newBuilder(base.resolve("/v0/entities?start=" + key + "&end=" + key + "5"))
              .timeout(REQUEST_TIMEOUT)
              .build();
      case 4 ->
          HttpRequest.newBuilder(base.resolve("/v0/entities?start=" + key + "&end=" + key + "5"))
              .header("Accept", "application/x-ndjson")
              .timeout(REQUEST_TIMEOUT)
              .build();
      case 5, 6, 7, 8, 9, 10, 11 -> request.GET().build();
      default -> request.PUT(body(value)).build();
    };
  }

  private static HttpRequest.BodyPublisher body(byte[] value) {
    return HttpRequest.BodyPublishers.ofByteArray(value);
  }

  /** An answer of the API (a 404 or a 412 is one) counts as served; a 5xx or no answer, failed. */
  private CompletableFuture<Integer> send(HttpClient http, HttpRequest request) {
    return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle(
            (response, e) -> {
              int status = e == null ? response.statusCode() : 0;
              (status > 0 && status < 500 ? served : failed).incrementAndGet();
              return status;
            });
  }

  /** The file this JVM writes its AOT cache to at exit, if it was asked to. */
  private static Optional<Path> cacheOutput() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(flag -> flag.startsWith("-XX:AOTCacheOutput="))
        .map(flag -> Path.of(flag.substring("-XX:AOTCacheOutput=".length())))
        .findFirst();
  }

  /**
   * Writes FILE.java: the home of the JDK writing FILE and the jar it runs, one a line. Only that
   * JDK can use the cache, for that jar: a launcher on another JDK (an older one refuses the flag)
   * or another copy of the jar must leave it out.
   */
  private static void nameTheJdkAndJar(Path cache) {
    try {
      Path jar =
          Path.of(TrainCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Files.writeString(
          Path.of(cache + ".java"),
          Path.of(System.getProperty("java.home")).toRealPath() + "\n" + jar.toRealPath() + "\n",
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
