package io.kvorum.node.cli;

import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.config.ConfigException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import sun.misc.Signal;

/**
 * {@code kvorum-node local}: a cluster on this machine for a first try. One child process per node,
 * HTTP on consecutive ports from {@code --http-port}, gRPC from {@code --grpc-port}, data in {@code
 * --data-dir}/node-i; prints each node's URL once all are ready and stops them all on Ctrl-C.
 */
@Command(
    name = "local",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Starts a kvorum cluster on this machine, one process per node.",
    description = {
      "",
      "Nodes are node-0, node-1, ... on 127.0.0.1; any other flag given here (e.g."
          + " --request-timeout 2s) is passed to every node. The nodes share this machine's"
          + " cores: each gets cores / nodes event loops (at least one) unless --io-threads is"
          + " given. Ctrl-C stops them all.",
      ""
    })
final class LocalClusterCommand implements Callable<Integer> {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);
  private static final Duration RELAY_DRAIN = Duration.ofSeconds(2);
  private static final Duration STOP_WITHIN = Duration.ofSeconds(30);
  private static final Duration READY_POLL = Duration.ofMillis(50);
  private static final Duration READY_ASK_WITHIN = Duration.ofSeconds(2);

  /** The system property in which bin/kvorum names the flags it gave the launcher alone. */
  static final String LAUNCHER_FLAGS = "kvorum.local.launcherFlags";

  @Spec CommandSpec spec;

  @Option(
      names = "--nodes",
      defaultValue = "3",
      paramLabel = "N",
      description = "How many nodes. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--http-port",
      defaultValue = "8080",
      paramLabel = "PORT",
      description = "HTTP port of node-0; node-i uses PORT+i. Default: ${DEFAULT-VALUE}.")
  int httpPort;

  @Option(
      names = "--grpc-port",
      defaultValue = "9090",
      paramLabel = "PORT",
      description = "gRPC port of node-0; node-i uses PORT+i. Default: ${DEFAULT-VALUE}.")
  int grpcPort;

  @Option(
      names = "--data-dir",
      defaultValue = "data",
      paramLabel = "DIR",
      description = "Node i keeps its data in DIR/node-i. Default: ./${DEFAULT-VALUE}.")
  Path dataDir;

  @Unmatched List<String> nodeFlags = new ArrayList<>();

  private final List<Process> children = new ArrayList<>();
  private final List<Thread> relays = new CopyOnWriteArrayList<>();
  private volatile boolean stopping;

  @Override
  public Integer call() throws InterruptedException {
    if (nodes < 1 || nodes > 32) {
      throw new ConfigException("--nodes", String.valueOf(nodes), "must be 1 to 32");
    }
    PrintWriter out = spec.commandLine().getOut();
    String peers = peers();
    CountDownLatch stop = new CountDownLatch(1);
    Signal.handle(new Signal("INT"), signal -> stop.countDown());
    Signal.handle(new Signal("TERM"), signal -> stop.countDown());
    Runtime.getRuntime().addShutdownHook(new Thread(this::stopChildren, "kvorum-local-stop"));
    for (int i = 0; i < nodes; i++) {
      children.add(launch(i, peers));
    }
    boolean ready = awaitReady();
    for (int i = 0; i < nodes; i++) {
      int node = i;
      // Before the cluster is up, a node that exits (bad flags, port in use) ends the launch;
      // afterwards, stopping or killing a node is an experiment the others survive.
      children
          .get(i)
          .onExit()
          .thenAccept(
              child -> {
                if (stopping) {
                  return;
                }
                out.printf(
                    "kvorum: node-%d exited with code %d; the other nodes keep running%n",
                    node, child.exitValue());
                out.flush();
              });
    }
    if (!ready) {
      stop.countDown();
    } else {
      // One write: whoever waits for "is ready" finds every node's line with it.
      StringBuilder banner =
          new StringBuilder(
              String.format("%nkvorum: a local cluster of %d nodes is ready%n", nodes));
      for (int i = 0; i < nodes; i++) {
        banner.append(
            String.format(
                "  node-%d  http://127.0.0.1:%d  (gRPC %d, data %s)%n",
                i, httpPort + i, grpcPort + i, dataDir.resolve("node-" + i)));
      }
      banner.append(
          String.format(
              "Try: curl -X PUT --data-binary hello 'http://127.0.0.1:%d/v0/entity?id=greeting'%n"
                  + "     curl 'http://127.0.0.1:%d/v0/entity?id=greeting'%n"
                  + "Press Ctrl-C to stop all nodes.%n%n",
              httpPort, httpPort + Math.min(1, nodes - 1)));
      out.print(banner);
      out.flush();
    }
    stop.await();
    stopping = true;
    int exit = firstFailure();
    stopChildren();
    return exit;
  }

  private String peers() {
    return LoopbackNode.peers(IntStream.range(0, nodes).mapToObj(this::node).toList());
  }

  private LoopbackNode node(int i) {
    return new LoopbackNode("node-" + i, httpPort + i, grpcPort + i);
  }

  private Process launch(int i, String peers) {
    List<String> command = new ArrayList<>(javaCommand());
    command.addAll(node(i).flags(dataDir, peers));
    command.addAll(nodeFlags);
    command.addAll(loopsFlag(nodeFlags, nodes, Runtime.getRuntime().availableProcessors()));
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().keySet().removeIf(name -> name.startsWith("KVORUM_"));
      Process child = builder.start();
      relays.add(relay(child.getInputStream(), "[node-" + i + "] ", System.out));
      relays.add(relay(child.getErrorStream(), "[node-" + i + "] ", System.err));
      return child;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start node-" + i + ": " + e.getMessage(), e);
    }
  }

  /**
   * Nodes sharing a machine share its cores: one event loop per core in each of them is more
   * threads than cores, which costs a quarter more CPU per request at a moderate rate
   * (docs/decisions/local-sizes-event-loops-to-the-machine.md). So each node gets {@code cores /
   * nodes} loops, at least one, unless the flags given to {@code local} choose.
   */
  static List<String> loopsFlag(List<String> nodeFlags, int nodes, int cores) {
    boolean chosen =
        nodeFlags.stream()
            .anyMatch(flag -> flag.equals("--io-threads") || flag.startsWith("--io-threads="));
    return chosen ? List.of() : List.of("--io-threads", String.valueOf(Math.max(1, cores / nodes)));
  }

  /**
   * The same program as this one, on the same Java with the same JVM flags (those bin/kvorum and
   * {@code JAVA_OPTS} gave the launcher): {@code java … -jar kvorum-node.jar}, or its class path.
   * Never the {@code java} on the PATH, which may be older than the one running this.
   */
  static List<String> javaCommand() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(nodeFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    String location =
        KvorumNode.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    if (location.endsWith(".jar")) {
      command.addAll(List.of("-jar", location));
    } else {
      if (!command.contains("--enable-native-access=ALL-UNNAMED")) {
        command.add("--enable-native-access=ALL-UNNAMED");
      }
      command.addAll(
          List.of("-cp", System.getProperty("java.class.path"), KvorumNode.class.getName()));
    }
    return command;
  }

  /**
   * The launcher's JVM flags that its nodes get too: not an agent (a debugger, a profiler), which
   * listens on a port or writes a file that only one process can have, nor the flags bin/kvorum
   * gave the launcher alone, which it names in {@value #LAUNCHER_FLAGS} (the first of each; a flag
   * that {@code JAVA_OPTS} repeats after them stays).
   */
  static List<String> nodeFlags(List<String> launcherFlags) {
    String prefix = "-D" + LAUNCHER_FLAGS + "=";
    List<String> own = new ArrayList<>();
    launcherFlags.stream()
        .filter(flag -> flag.startsWith(prefix))
        .findFirst()
        .ifPresent(named -> own.addAll(List.of(named.substring(prefix.length()).split(" "))));
    List<String> flags = new ArrayList<>();
    for (String flag : launcherFlags) {
      if (!flag.startsWith(prefix)
          && !own.remove(flag)
          && !flag.startsWith("-agentlib:")
          && !flag.startsWith("-agentpath:")
          && !flag.startsWith("-javaagent:")
          && !flag.startsWith("-Xrunjdwp")) {
        flags.add(flag);
      }
    }
    return flags;
  }

  private static Thread relay(InputStream stream, String prefix, java.io.PrintStream to) {
    return Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  to.println(prefix + line);
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
  }

  /**
   * Asks every node not ready yet for {@code /health/ready}, each {@link #READY_POLL}, through one
   * HTTP client: the last node's ready is seen within a poll of it.
   */
  private boolean awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    List<URI> waiting = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      waiting.add(URI.create("http://127.0.0.1:" + (httpPort + i) + "/health/ready"));
    }
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(READY_ASK_WITHIN).build()) {
      while (true) {
        // A node that exited (a port in use, bad flags) fails the launch, even if whatever holds
        // its port answers that it is ready.
        if (System.nanoTime() > deadline || children.stream().anyMatch(c -> !c.isAlive())) {
          return false;
        }
        waiting.removeIf(node -> ready(http, node));
        if (waiting.isEmpty()) {
          return true;
        }
        Thread.sleep(READY_POLL);
      }
    }
  }

  /** Whether the node answers {@code /health/ready} with 200. */
  private static boolean ready(HttpClient http, URI readiness) {
    try {
      HttpRequest ask = HttpRequest.newBuilder(readiness).timeout(READY_ASK_WITHIN).build();
      return http.send(ask, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The exit code of the first node that stopped on its own with a failure, else 0. */
  private int firstFailure() {
    for (Process child : children) {
      if (!child.isAlive() && child.exitValue() != 0) {
        return child.exitValue();
      }
    }
    return ExitCodes.OK;
  }

  /**
   * SIGTERM to every node at once, then SIGKILL to those still running when {@code within} is over:
   * one deadline for all, so a node slow to stop (its shutdown grace, hints it tries to deliver to
   * nodes that are stopping too) delays Ctrl-C by {@code within} at most, not by that much per
   * node. Through the handles: {@code Process.destroy} would also close the pipes, and the nodes'
   * shutdown lines would be lost.
   */
  static void stopAll(List<ProcessHandle> nodes, Duration within) {
    nodes.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + within.toNanos();
    for (ProcessHandle node : nodes) {
      try {
        node.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        node.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        nodes.forEach(ProcessHandle::destroyForcibly);
        return;
      }
    }
  }

  private synchronized void stopChildren() {
    stopping = true;
    stopAll(children.stream().map(Process::toHandle).toList(), STOP_WITHIN);
    // The nodes' last lines ("node node-i stopped") may still be in the pipes: relay them before
    // this process exits, which would end the relays (daemons) mid-way.
    long deadline = System.nanoTime() + RELAY_DRAIN.toNanos();
    for (Thread relay : relays) {
      try {
        relay.join(Duration.ofNanos(deadline - System.nanoTime()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
