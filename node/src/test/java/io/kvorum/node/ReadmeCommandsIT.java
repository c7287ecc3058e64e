package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.RepositoryScripts;
import io.kvorum.node.testing.RepositoryScripts.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's two commands, parsed from README.md and run exactly as written on the machine the
 * README promises them for: {@code JAVA_HOME} unset and a JDK 17 as the first {@code java} on the
 * PATH (Debian 12's default), with a JDK 21 or newer installed beside it. They run in a clean copy
 * of the repository: the files {@code git} tracks or would add (so uncommitted changes are tested,
 * ignored files such as {@code target/} and {@code data/} are not); in CI, which starts from a
 * clean clone, that is the clone itself.
 *
 * <ol>
 *   <li>The first command builds everything and starts {@code local}: the test waits until the
 *       three nodes answer {@code GET /v0/status} with 200 on ports 8080-8082 (the README's ports),
 *       checks that they run on a Java 21 or newer with the launcher's JVM flags, writes through
 *       one and reads through another, then presses Ctrl-C (SIGINT to the whole process group, as a
 *       terminal does) and checks that every process stopped and the ports are closed.
 *   <li>The second command, {@code ./mvnw verify}, runs restricted to the {@code api} module
 *       ({@code -pl api}, plus {@code -V} to print the Java Maven runs on) and to two of its test
 *       classes: the full suite would run this test again inside itself and double CI's time. It
 *       proves the JDK discovery for {@code verify}: the enforcer's Java rule, the compiler with
 *       Error Prone, forked Surefire and Failsafe JVMs, Spotless.
 * </ol>
 *
 * <p>The first command's build runs without Error Prone ({@code MAVEN_ARGS=-DskipErrorProne}, the
 * command itself as written): the second command runs Error Prone on the same JDK, and what the
 * first shows is the JDK found, the jar and the AOT cache built, and {@code local} run from them.
 * Error Prone would add about half of that build's compile time for nothing more.
 *
 * <p>Not covered here: the other modules' tests under the discovered JDK (CI's own {@code ./mvnw
 * verify} runs them, without a JDK on the PATH or in JAVA_HOME chosen for it), and Windows' {@code
 * mvnw.cmd}, which finds nothing and relies on JAVA_HOME. Without a JDK 17 the test is skipped on a
 * developer machine and fails in CI ({@code CI=true}).
 */
// Runs with no other class beside it (node/pom.xml): a whole Maven build of its own, which takes
// both cores.
@Tag("alone")
class ReadmeCommandsIT {
  private static final int[] PORTS = {8080, 8081, 8082, 9090, 9091, 9092};
  private static final Duration BUILD_AND_START = Duration.ofMinutes(5);
  private static final Duration STOP = Duration.ofSeconds(60);
  private static final Duration VERIFY = Duration.ofMinutes(4);

  /**
   * Two of the api's quick test classes: enough to show Surefire's forked JVM on the JDK found
   * (CI's own build runs them all).
   */
  private static final String API_TESTS = " -Dtest=UrlsTest,OpenApiDocumentTest";

  @TempDir Path work;

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a full build inside; about two minutes here
  void theReadmeCommandsWorkAsWrittenWhereTheDefaultJavaIs17() throws Exception {
    Path jdk17 = jdk17OrSkip();
    Path repository = RepositoryScripts.repository();
    List<String> commands = readmeCommands(repository.resolve("README.md"));
    assertThat(commands).as("the README's first code block").hasSize(2);
    assertThat(commands.get(1)).as("the README's second command").startsWith("./mvnw verify");
    Path clone = cleanCopy(repository, work.resolve("kvorum"));
    Map<String, String> env = RepositoryScripts.environmentWithoutJava();
    env.put("PATH", jdk17.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin");
    assertThat(RepositoryScripts.run(clone, env, Duration.ofSeconds(30), "java", "-version"))
        .as("the java on the test's PATH")
        .satisfies(java -> assertThat(java.stderr()).contains(" version \"17"));

    Map<String, String> withoutErrorProne = new HashMap<>(env);
    withoutErrorProne.merge("MAVEN_ARGS", "-DskipErrorProne", (args, skip) -> args + " " + skip);
    runTheFirstCommandAndPressCtrlC(clone, withoutErrorProne, commands.get(0));

    Outcome verify =
        RepositoryScripts.run(
            clone, env, VERIFY, "sh", "-c", commands.get(1) + " -V -pl api" + API_TESTS);
    assertThat(verify.exitCode()).as(verify.stdout() + verify.stderr()).isZero();
    assertThat(verify.stdout()).contains("BUILD SUCCESS").doesNotContain("Java version: 17");
    assertThat(clone.resolve("api/target/surefire-reports")).isNotEmptyDirectory();
  }

  private void runTheFirstCommandAndPressCtrlC(Path clone, Map<String, String> env, String command)
      throws Exception {
    for (int port : PORTS) {
      if (inUse(port)) {
        fail("port %d is in use; the README's `local` needs 8080-8082 and 9090-9092", port);
      }
    }
    Path log = work.resolve("first-command.log");
    // setsid: a process group of its own, as a terminal gives a command, for Ctrl-C to signal.
    // env --default-signal=INT: Ctrl-C's default action, as a terminal's shell gives a command. A
    // build started in the background of a shell without job control (`cmd &` in a script)
    // inherits SIGINT ignored, the ignoring survives exec, and a JVM that starts with SIGINT
    // ignored keeps ignoring it: the cluster would never see this test's Ctrl-C.
    ProcessBuilder builder =
        new ProcessBuilder("setsid", "env", "--default-signal=INT", "sh", "-c", command)
            .directory(clone.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Process shell = builder.start();
    // setsid makes the shell the leader of the new group (it forks only if it already led one).
    long group = shell.pid();
    try {
      Awaitility.await("the command's own process group")
          .atMost(Duration.ofSeconds(10))
          .until(() -> !shell.isAlive() || processGroup(shell.toHandle()) == group);
      // Ready as a user sees it: the command says so. Its nodes may answer /ready a moment before
      // it notices; a Ctrl-C in that moment stops a cluster that never said it was ready.
      awaitReady(shell, log);
      List<ProcessHandle> processes = shell.descendants().toList();
      List<ProcessHandle> nodes = processes.stream().filter(ReadmeCommandsIT::isNode).toList();
      assertThat(nodes).hasSize(3).allSatisfy(ReadmeCommandsIT::runsOnJava21WithTheLaunchersFlags);
      try (KvorumClient first = KvorumClient.connect("127.0.0.1", 8080);
          KvorumClient third = KvorumClient.connect("127.0.0.1", 8082)) {
        first.put("greeting", "hello");
        assertThat(third.getUtf8("greeting")).hasValue("hello");
      }

      assertThat(nodes).allSatisfy(node -> assertThat(processGroup(node)).isEqualTo(group));
      assertThat(signal("INT", group)).as("kill -s INT -- -%d", group).isZero();

      try {
        Awaitility.await("every process of the command stopped")
            .atMost(STOP)
            .until(() -> !shell.isAlive() && processes.stream().noneMatch(ProcessHandle::isAlive));
      } catch (ConditionTimeoutException e) {
        fail(
            "not every process of the command stopped within %s of Ctrl-C; still running:%n%s%n"
                + "the command printed:%n%s",
            STOP, describe(shell.isAlive(), processes), RepositoryScripts.tail(log, 80));
      }
      assertThat(IntStream.of(PORTS).filter(ReadmeCommandsIT::inUse))
          .as("ports still open")
          .isEmpty();
      assertThat(Files.readString(log))
          .contains("is ready")
          .contains("node node-0 stopped", "node node-1 stopped", "node node-2 stopped");
    } finally {
      signal("KILL", group); // whatever is left of the group, even if the shell is gone
    }
  }

  /** The processes of {@code processes} still alive, a line each: pid, parent, command line. */
  private static String describe(boolean shellAlive, List<ProcessHandle> processes) {
    StringBuilder alive = new StringBuilder(shellAlive ? "  the shell itself\n" : "");
    for (ProcessHandle process : processes) {
      if (process.isAlive()) {
        alive.append(
            String.format(
                "  %d (parent %s): %s%n",
                process.pid(),
                process.parent().map(p -> String.valueOf(p.pid())).orElse("?"),
                process.info().commandLine().orElse("?")));
      }
    }
    return alive.toString();
  }

  /**
   * Until all three nodes answer ready and the command says so, or fails with what the command
   * printed last in the failure's own message: CI's summary shows that message, not a cause's.
   */
  private static void awaitReady(Process shell, Path log) throws Exception {
    long deadline = System.nanoTime() + BUILD_AND_START.toNanos();
    while (!(IntStream.of(8080, 8081, 8082).allMatch(ReadmeCommandsIT::ready)
        && Files.readString(log).contains("is ready"))) {
      if (!shell.isAlive()) {
        fail(
            "the command ended with exit code %d before the cluster was ready; its last lines:%n%s",
            shell.exitValue(), RepositoryScripts.tail(log, 25));
      }
      if (System.nanoTime() > deadline) {
        fail(
            "the cluster was not ready within %s; the command's last lines:%n%s",
            BUILD_AND_START, RepositoryScripts.tail(log, 25));
      }
      Thread.sleep(1000);
    }
  }

  private static void runsOnJava21WithTheLaunchersFlags(ProcessHandle node) {
    Path java = Path.of(node.info().command().orElseThrow());
    int feature = RepositoryScripts.featureVersion(java.getParent().getParent());
    assertThat(feature).as("the Java of %s", java).isGreaterThanOrEqualTo(21);
    List<String> arguments = List.of(node.info().arguments().orElseThrow());
    assertThat(arguments)
        .contains("--enable-native-access=ALL-UNNAMED", "-XX:+ExitOnOutOfMemoryError");
    // On a JDK that has it, the build trained the AOT cache and bin/kvorum starts the nodes with
    // it (node/pom.xml, profile aot-cache).
    if (feature >= 25) {
      assertThat(arguments).anySatisfy(flag -> assertThat(flag).endsWith("/kvorum-node.aot"));
    }
    // The three nodes share this machine's cores (LocalClusterCommand.loopsFlag).
    int loops = Math.max(1, Runtime.getRuntime().availableProcessors() / 3);
    assertThat(arguments).containsSequence("--io-threads", String.valueOf(loops));
  }

  private static boolean isNode(ProcessHandle process) {
    return process.info().arguments().map(List::of).orElse(List.of()).contains("--node-id");
  }

  /** The first {@code sh} block of the README: one command a line. */
  static List<String> readmeCommands(Path readme) throws IOException {
    List<String> commands = new ArrayList<>();
    boolean inBlock = false;
    for (String line : Files.readAllLines(readme, StandardCharsets.UTF_8)) {
      if (!inBlock && line.strip().equals("```sh")) {
        inBlock = true;
      } else if (inBlock && line.strip().startsWith("```")) {
        return commands;
      } else if (inBlock && !line.isBlank() && !line.strip().startsWith("#")) {
        commands.add(line.strip());
      }
    }
    throw new IllegalStateException(readme + " has no complete ```sh block");
  }

  /**
   * What a clone would hold once the work in {@code repository} is committed: the files git tracks
   * or would add (not ignored ones), with their permissions.
   */
  private static Path cleanCopy(Path repository, Path to) throws IOException {
    Outcome files =
        RepositoryScripts.run(
            repository,
            System.getenv(),
            Duration.ofSeconds(60),
            "git",
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard");
    assertThat(files.exitCode()).as("git ls-files: " + files.stderr()).isZero();
    for (String name : files.stdout().split("\0")) {
      Path from = repository.resolve(name);
      if (name.isEmpty() || !Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
        continue; // deleted in the working tree
      }
      Path copy = to.resolve(name);
      Files.createDirectories(copy.getParent());
      Files.copy(from, copy, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
    }
    return to;
  }

  private static Path jdk17OrSkip() {
    Optional<Path> jdk17 = RepositoryScripts.jdk17();
    if (jdk17.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(
          "CI=true but no JDK 17 under /usr/lib/jvm: the README's commands must be tried with one");
    }
    Assumptions.assumeTrue(
        jdk17.isPresent(),
        "no JDK 17 under /usr/lib/jvm (or -Dkvorum.test.jdk17=HOME) to stand for an older default"
            + " java");
    return jdk17.get();
  }

  private static boolean ready(int port) {
    try (KvorumClient client = KvorumClient.connect("127.0.0.1", port, Duration.ofSeconds(2))) {
      return client.ready();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean inUse(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The process group of {@code process}: the 5th field of /proc/PID/stat (after its name). */
  private static long processGroup(ProcessHandle process) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "stat"));
      return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code kill -s SIGNAL -- -GROUP}: its exit code (non-zero when the group is gone). */
  private static int signal(String signal, long group) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-s", signal, "--", "-" + group)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return kill.waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the signal is sent: kill has started
      return -1;
    }
  }
}
