package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.core.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A node run as its own process from the fat jar, the way users run it: {@code java -jar
 * node/target/kvorum-node.jar …}. Output goes to files beside the data directory.
 */
public final class NodeProcess implements AutoCloseable {
  /**
   * JVM flags the build gives every node and command a test starts ({@code kvorum.node.testJvmArgs}
   * in node/pom.xml): the process tests start hundreds of short-lived JVMs on two cores, where
   * compiling hot code with C2 costs more CPU than it saves
   * (docs/decisions/test-nodes-compile-with-c1-alone.md). Empty when unset.
   */
  private static final List<String> TEST_FLAGS =
      List.of(System.getProperty("kvorum.node.testJvmArgs", "").trim().split("\\s+")).stream()
          .filter(flag -> !flag.isEmpty())
          .toList();

  /**
   * Ports handed out so far: a random port free now may be handed out twice before either node
   * binds it (CI saw a node's HTTP port equal to its own gRPC port).
   */
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  /** Where the kernel's ephemeral ports (outgoing connections' source ports) begin. */
  private static final int EPHEMERAL_LOW = LoopbackPorts.ephemeralLow();

  /**
   * This JVM's share of the ports from {@link LoopbackPorts#FIRST} up to the ephemeral range: test
   * JVMs forked side by side by one build (Surefire's {@code forkCount}) each draw from their own
   * slice, so a port one of them handed out and has not bound yet, or keeps for a stopped node, is
   * never handed out by another.
   */
  private static final PortSlice PORTS =
      PortSlice.of(
          LoopbackPorts.FIRST, EPHEMERAL_LOW, fork(), Integer.getInteger("kvorum.test.forks", 1));

  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final int httpPort;

  private NodeProcess(Process process, Path stdout, Path stderr, int httpPort) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.httpPort = httpPort;
  }

  /** The fat jar under test (set by the build; built by {@code package}). */
  public static Path jar() {
    String jar = System.getProperty("kvorum.node.jar", "target/kvorum-node.jar");
    Path path = Path.of(jar).toAbsolutePath();
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(path + " is missing; run `./mvnw package` first");
    }
    return path;
  }

  /** Launches {@code kvorum-node args…} with extra environment variables; does not wait. */
  public static NodeProcess launch(
      Path logDir, int httpPort, Map<String, String> env, String... args) {
    return launch(jar(), logDir, httpPort, env, args);
  }

  /** As {@link #launch(Path, int, Map, String...)}, from another release's {@code jar}. */
  public static NodeProcess launch(
      Path jar, Path logDir, int httpPort, Map<String, String> env, String... args) {
    try {
      Files.createDirectories(logDir);
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx256m");
      command.add("--enable-native-access=ALL-UNNAMED");
      command.addAll(TEST_FLAGS);
      command.addAll(aotCache(jar));
      command.add("-jar");
      command.add(jar.toString());
      command.addAll(List.of(args));
      Path out = Files.createTempFile(logDir, "node-", ".out");
      Path err = Files.createTempFile(logDir, "node-", ".err");
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().keySet().removeIf(k -> k.startsWith("KVORUM_"));
      builder.environment().putAll(env);
      return new NodeProcess(builder.start(), out, err, httpPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The command line {@code bin/kvorum} runs for {@code kvorum-node args…} with the jar under test:
   * this JDK's {@code java}, the launcher's flags and the build's ahead-of-time cache, which also
   * starts the short data and operator commands sooner.
   */
  public static List<String> command(String... args) {
    Path jar = jar();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.addAll(TEST_FLAGS);
    command.addAll(aotCache(jar));
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * The JDK's ahead-of-time cache the build trained beside {@code jar} (node/pom.xml, profile
   * aot-cache), as bin/kvorum uses it: only if it is newer than the jar and was written by this
   * test's JDK for this jar. Nodes start in half the CPU time with it, and the process tests start
   * many.
   */
  static List<String> aotCache(Path jar) {
    String name = jar.getFileName().toString().replaceFirst("\\.jar$", ".aot");
    Path cache = jar.resolveSibling(name);
    Path trainedBy = jar.resolveSibling(name + ".java");
    try {
      if (Files.isRegularFile(cache)
          && Files.isRegularFile(trainedBy)
          && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0
          && Files.readAllLines(trainedBy)
              .equals(
                  List.of(
                      Path.of(System.getProperty("java.home")).toRealPath().toString(),
                      jar.toRealPath().toString()))) {
        return List.of("-XX:AOTCache=" + cache);
      }
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a single node and waits until it reports ready. */
  public static NodeProcess startSingle(Path dataDir, String nodeId) {
    return startSingle(dataDir, dataDir.getParent().resolve("logs"), nodeId);
  }

  /**
   * Starts a single node with more options, its output in {@code logDir}, and waits until it
   * reports ready.
   */
  public static NodeProcess startSingle(
      Path dataDir, Path logDir, String nodeId, String... options) {
    NodeProcess node = launchSingle(dataDir, logDir, nodeId, Map.of(), options);
    node.awaitReady();
    return node;
  }

  /**
   * Launches a single node on free loopback ports with extra environment variables and options, its
   * output in {@code logDir}; does not wait.
   */
  public static NodeProcess launchSingle(
      Path dataDir, Path logDir, String nodeId, Map<String, String> env, String... options) {
    return launchSingle(jar(), dataDir, logDir, nodeId, env, options);
  }

  /** As {@link #launchSingle(Path, Path, String, Map, String...)}, from another {@code jar}. */
  public static NodeProcess launchSingle(
      Path jar,
      Path dataDir,
      Path logDir,
      String nodeId,
      Map<String, String> env,
      String... options) {
    int http = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--node-id",
                nodeId,
                "--http-host",
                "127.0.0.1",
                "--http-port",
                String.valueOf(http),
                "--grpc-port",
                String.valueOf(freePort()),
                "--data-dir",
                dataDir.toString()));
    args.addAll(List.of(options));
    return launch(jar, logDir, http, env, args.toArray(String[]::new));
  }

  public void awaitReady() {
    awaitReady(Duration.ofSeconds(30));
  }

  /** Waits up to {@code within} for the node to report ready; fails at once if it exits. */
  public void awaitReady(Duration within) {
    try (KvorumClient client = client()) {
      Awaitility.await()
          .atMost(within)
          .pollInterval(Duration.ofMillis(100))
          .failFast(
              "the node exited",
              () -> {
                if (process.isAlive()) {
                  return;
                }
                throw new IllegalStateException(
                    "the node exited with "
                        + process.exitValue()
                        + "; stderr: "
                        + stderr()
                        + "; the end of stdout: "
                        + tail(stdout(), 4000));
              })
          // The node's own log line as well: a ready answer on its port proves nothing if another
          // process holds that port (this node then fails to bind and exits a moment later).
          .until(() -> client.ready() && reportedReady());
    }
  }

  /** Whether this process logged that it is ready, serving HTTP on its port. */
  private boolean reportedReady() {
    return stdout()
        .lines()
        .anyMatch(l -> l.contains(" ready: HTTP on ") && l.contains(":" + httpPort + ","));
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public KvorumClient client() {
    return KvorumClient.connect("127.0.0.1", httpPort, Duration.ofSeconds(10));
  }

  /** The operating system's id of the node's process. */
  public long pid() {
    return process.pid();
  }

  public int httpPort() {
    return httpPort;
  }

  /** SIGKILL: no shutdown hook, no flush, nothing. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then the exit code. */
  public int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("the node did not stop within 60 s of SIGTERM");
    }
    return process.exitValue();
  }

  /** Waits for a process expected to exit by itself (e.g. on bad configuration). */
  public int awaitExit() throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("the node did not exit");
    }
    return process.exitValue();
  }

  public String stdout() {
    return read(stdout);
  }

  public String stderr() {
    return read(stderr);
  }

  private static String tail(String text, int chars) {
    return text.length() <= chars ? text : "…" + text.substring(text.length() - chars);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * This JVM's number among the test JVMs the build forked ({@code -Dkvorum.test.fork},
   * node/pom.xml). Missing or not a number where there are several is an error, not the first
   * slice: two JVMs drawing from one slice hand out each other's ports (a node then fails to bind
   * its own).
   */
  private static int fork() {
    int forks = Integer.getInteger("kvorum.test.forks", 1);
    String fork = System.getProperty("kvorum.test.fork", "").trim();
    if (forks == 1 && fork.isEmpty()) {
      return 1;
    }
    try {
      return Integer.parseInt(fork);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "-Dkvorum.test.fork is '"
              + fork
              + "' in one of "
              + forks
              + " test JVMs: each needs its own number for its slice of ports (node/pom.xml)");
    }
  }

  /**
   * A port free now, below the kernel's ephemeral range: a node restarted on its ports must find
   * them free, and a port of the ephemeral range (what {@code new ServerSocket(0)} gives) may be
   * taken meanwhile as the source port of any outgoing connection on the machine, e.g. a peer's
   * reconnection, which fails the restart with "address in use".
   */
  public static int freePort() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(PORTS.first(), PORTS.end());
      if (!HANDED_OUT.add(port)) {
        continue; // given to another node of this JVM's tests, maybe not bound yet
      }
      if (LoopbackPorts.free(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free port in " + PORTS.first() + "-" + (PORTS.end() - 1));
  }

  /**
   * SIGKILL to the process and to what it started ({@code kvorum local}'s nodes), so that a test
   * that failed midway leaves no node running: the children are listed before the parent dies,
   * since they are no longer its descendants after.
   */
  @Override
  public void close() throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    children.forEach(ProcessHandle::destroyForcibly);
    if (process.isAlive()) {
      kill();
    }
    for (ProcessHandle child : children) {
      child.onExit().completeOnTimeout(child, 30, TimeUnit.SECONDS).join();
    }
  }
}
