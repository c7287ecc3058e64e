package io.kvorum.node.cli.data;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The data commands ({@code put}, {@code get}, {@code scan}, {@code delete}) and the operator
 * commands that talk HTTP ({@code status}, {@code snapshot}) in this JVM against a node that asks
 * for a token: what they print and the exit codes they end with. {@code DataCliProcessIT} runs them
 * as processes where the process is the point: bytes through stdin and stdout, the token and the CA
 * from the environment, TLS.
 */
class DataCommandsTest {
  private static final String TOKEN = "admin-token-0123456789";

  @TempDir Path dir;
  private TestNode node;

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void start() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), TOKEN + " admin\n");
    node = TestNode.start(TestConfig.in(dir.resolve("data")).authTokens(tokens).build());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = KvorumNode.commandLine();
    command.setOut(new PrintWriter(out));
    command.setErr(new PrintWriter(err));
    int exit = command.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** {@code args} with the node's address and the token. */
  private String[] at(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--port", String.valueOf(node.port()), "--token", TOKEN));
    return all.toArray(String[]::new);
  }

  @Test
  void eachCommandPrintsWhatItDidAndExitsByItsOutcome() throws Exception {
    Run put = run(at("put", "cli/a", "one"));
    assertThat(put.exit()).as(put.err()).isZero();
    assertThat(put.out()).matches("\"\\d+\\.\\d+\"\\s*");
    Path file = Files.write(dir.resolve("value.bin"), "from a file".getBytes(UTF_8));
    assertThat(run(at("put", "cli/c", "--file", file.toString())).exit()).isZero();

    Run absent = run(at("get", "cli/none"));
    assertThat(absent.exit()).isEqualTo(3);
    assertThat(absent.err()).contains("cli/none: absent");
    assertThat(run(at("get", "cli/none", "--linearizable")).exit()).isEqualTo(3);
    Run both = run(at("get", "cli/a", "--linearizable", "--ack", "1"));
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--linearizable takes no --ack or --from");

    Run keys = run(at("scan", "cli/", "cli0"));
    assertThat(keys.exit()).as(keys.err()).isZero();
    assertThat(keys.out()).isEqualTo("cli/a\ncli/c\n");
    assertThat(run(at("delete", "cli/a")).exit()).isZero();
    assertThat(run(at("scan", "cli/", "cli0", "--values")).out()).isEqualTo("cli/c\tfrom a file\n");

    Run status = run(at("status"));
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out()).contains(node.config().nodeId().value());
    Run snapshot = run(at("snapshot", "--name", "cli"));
    assertThat(snapshot.exit()).as(snapshot.err()).isZero();
  }

  @Test
  void withoutTheTokenTheNodesRefusalEndsTheCommandWithExit1() {
    Run get = run("get", "cli/a", "--port", String.valueOf(node.port()));
    assertThat(get.exit()).isEqualTo(1);
    assertThat(get.err()).contains("401");
    Run status = run("status", "--port", String.valueOf(node.port()));
    assertThat(status.exit()).isEqualTo(1);
    assertThat(status.err()).contains("401");
  }

  @Test
  void aNodeThatCannotBeReachedEndsTheCommandWithExit1() {
    Run unreachable = run("get", "k", "--port", "1");
    assertThat(unreachable.exit()).isEqualTo(1);
    assertThat(unreachable.err()).contains("kvorum-node get: cannot reach the node");
  }
}
