package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.ProcessCluster;
import io.kvorum.node.testing.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
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
 * The data commands run as a user runs them, each a process, against a node in plain HTTP and
 * against one with the client port over TLS and tokens ({@code --tls-ca}, {@code KVORUM_TOKEN},
 * {@code KVORUM_CLIENT_TLS_CA}): values through stdin and stdout, the token and the CA from the
 * environment, a refusal without the token. What every command prints and exits with is {@code
 * DataCommandsTest}'s, in one JVM, where a command costs no JVM start.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DataCliProcessIT {
  private static final String TOKEN = "admin-token-0123456789";

  @TempDir Path work;

  record Run(int exit, byte[] stdout, String stderr) {
    String out() {
      return new String(stdout, UTF_8);
    }
  }

  private Run cli(Map<String, String> env, byte[] stdin, String... args) throws Exception {
    // As bin/kvorum runs it: the launcher's flags and the build's AOT cache.
    ProcessBuilder builder = new ProcessBuilder(NodeProcess.command(args));
    builder.environment().keySet().removeIf(k -> k.startsWith("KVORUM_"));
    builder.environment().putAll(env);
    Path err = Files.createTempFile(work, "cli-", ".err");
    builder.redirectError(err.toFile());
    Process process = builder.start();
    try (var in = process.getOutputStream()) {
      in.write(stdin);
    }
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), out, Files.readString(err));
  }

  /**
   * The commands whose bytes go through the process's stdin and stdout: a text value as an
   * argument, binary bytes from stdin and back to stdout unchanged, a linearizable read. What every
   * command prints and exits with otherwise is {@code DataCommandsTest}'s, in one JVM.
   */
  private void throughStdinAndStdout(String[] address, Map<String, String> env) throws Exception {
    Run put = cli(env, new byte[0], with(address, "put", "cli/a", "one"));
    assertThat(put.exit()).as(put.stderr()).isZero();
    assertThat(put.out()).matches("\"\\d+\\.\\d+\"\\s*");
    byte[] binary = {0, 1, 2, (byte) 0xFF, '\n'};
    assertThat(cli(env, binary, with(address, "put", "cli/b")).exit()).isZero();

    assertThat(cli(env, new byte[0], with(address, "get", "cli/a")).out()).isEqualTo("one");
    assertThat(cli(env, new byte[0], with(address, "get", "cli/b")).stdout()).isEqualTo(binary);
    assertThat(cli(env, new byte[0], with(address, "get", "cli/a", "--linearizable")).out())
        .isEqualTo("one");
  }

  private static String[] with(String[] address, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(address));
    return all.toArray(String[]::new);
  }

  @Test
  void onAPlainNode() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 1).start()) {
      String[] address = {"--host", "127.0.0.1", "--port", String.valueOf(cluster.httpPort(0))};
      throughStdinAndStdout(address, Map.of());
    }
  }

  @Test
  void overTlsWithATokenFromTheEnvironment() throws Exception {
    TestCertificates.NodeFiles files =
        TestCertificates.authority("kvorum-test-ca").issue("kvorum", work.resolve("tls"));
    Path tokens = Files.writeString(work.resolve("tokens"), TOKEN + " admin\n");
    List<String> flags = new ArrayList<>(List.of(files.flags()));
    flags.addAll(List.of("--http-tls", "--auth-tokens", tokens.toString()));
    try (ProcessCluster cluster =
        new ProcessCluster(work, 1, flags.toArray(String[]::new)).start(0)) {
      int port = cluster.httpPort(0);
      try (KvorumClient probe =
          KvorumClient.builder().seed("127.0.0.1", port).tlsCa(files.ca()).build()) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptionsInstanceOf(IOException.class)
            .until(probe::ready);
      }
      String[] address = {
        "--host", "127.0.0.1", "--port", String.valueOf(port), "--tls-ca", files.ca().toString()
      };
      throughStdinAndStdout(address, Map.of("KVORUM_TOKEN", TOKEN));
      // The CA from the environment too; the token on the command line.
      Run get =
          cli(
              Map.of("KVORUM_CLIENT_TLS_CA", files.ca().toString()),
              new byte[0],
              "get",
              "cli/a",
              "--host",
              "127.0.0.1",
              "--port",
              String.valueOf(port),
              "--token",
              TOKEN);
      assertThat(get.out()).isEqualTo("one");

      Run noToken = cli(Map.of(), new byte[0], with(address, "get", "cli/a"));
      assertThat(noToken.exit()).isEqualTo(1);
      assertThat(noToken.stderr()).contains("401");
      Run noTokenStatus = cli(Map.of(), new byte[0], with(address, "status"));
      assertThat(noTokenStatus.exit()).isEqualTo(1);
      assertThat(noTokenStatus.stderr()).contains("401");
    }
  }
}
