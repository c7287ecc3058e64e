package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvorum-node healthcheck}, the container image's health check, on real processes: it finds
 * a node's client port and scheme from the node's own command line, so it passes for a node that
 * serves HTTPS ({@code --http-tls}) as for one that serves plain HTTP, and fails once the node is
 * gone (issue 27).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HealthCheckProcessIT {
  @TempDir Path work;

  private record Outcome(int exit, String out) {}

  private static Outcome healthcheck(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx64m", "-jar", NodeProcess.jar().toString(), "healthcheck"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("KVORUM_"));
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Outcome(process.exitValue(), out);
  }

  private static void awaitHealthy(NodeProcess node, String... args) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .failFast("the node exited", () -> !node.isAlive())
        .until(() -> healthcheck(args).exit() == 0);
  }

  @Test
  void aNodeServingHttpsIsHealthyByItsOwnFlagsAndUnhealthyOnceGone() throws Exception {
    TestCertificates.NodeFiles files =
        TestCertificates.authority("kvorum-test-ca").issue("kvorum", work.resolve("tls"));
    int http = NodeProcess.freePort();
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--node-id",
                "n1",
                "--http-port",
                String.valueOf(http),
                "--grpc-port",
                String.valueOf(NodeProcess.freePort()),
                "--data-dir",
                work.resolve("n1").toString(),
                "--http-tls"));
    flags.addAll(List.of(files.flags()));
    try (NodeProcess node =
        NodeProcess.launch(work.resolve("logs"), http, Map.of(), flags.toArray(String[]::new))) {
      String pid = String.valueOf(node.pid());
      awaitHealthy(node, "--pid", pid);

      Outcome healthy = healthcheck("--pid", pid);
      assertThat(healthy.out()).contains("https://127.0.0.1:" + http + "/health/ready");
      // The same flags given to the command itself work as well.
      assertThat(healthcheck(flags.toArray(String[]::new)).exit()).isZero();
      // Plain HTTP to an HTTPS port is no answer: not healthy.
      Outcome plain =
          healthcheck("--http-port", String.valueOf(http), "--data-dir", work.toString());
      assertThat(plain.exit()).as(plain.out()).isEqualTo(1);

      assertThat(node.terminate()).isZero();
      Outcome gone = healthcheck(flags.toArray(String[]::new));
      assertThat(gone.exit()).as(gone.out()).isEqualTo(1);
      assertThat(gone.out()).contains("https://127.0.0.1:" + http + "/health/ready");
    }
  }

  @Test
  void aNodeServingPlainHttpIsHealthyByItsOwnFlags() throws Exception {
    try (NodeProcess node = NodeProcess.startSingle(work.resolve("data"), "n1")) {
      Outcome healthy = healthcheck("--pid", String.valueOf(node.pid()));
      assertThat(healthy.exit()).as(healthy.out()).isZero();
      assertThat(healthy.out())
          .contains("http://127.0.0.1:" + node.httpPort() + "/health/ready")
          .contains("ready");
    }
  }

  @Test
  void aProcessThatIsNotANodeIsAConfigurationError() throws Exception {
    Outcome outcome = healthcheck("--pid", String.valueOf(ProcessHandle.current().pid()));
    assertThat(outcome.exit()).as(outcome.out()).isEqualTo(2);
    assertThat(outcome.out()).contains("cannot read the flags of process");
  }
}
