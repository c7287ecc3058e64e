package io.kvorum.node.cli.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvorum-node batch}: items read one a line, one result line per item in order; exit 0 when
 * every item was done (404 included), 2 for a line it cannot read (nothing sent), and {@code scan
 * --limit}.
 */
class BatchCommandTest {
  @TempDir Path dir;
  private TestNode node;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void start() {
    node = TestNode.start(TestConfig.in(dir.resolve("data")).build());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private int run(String... args) {
    CommandLine command = KvorumNode.commandLine();
    command.setOut(new PrintWriter(out));
    command.setErr(new PrintWriter(err));
    return command.execute(args);
  }

  @Test
  void printsOneResultLinePerItemInOrder() throws Exception {
    String tag = node.client().put("cli/old", "kept");
    node.client().put("cli/doomed", "gone soon");
    Path items =
        Files.writeString(
            dir.resolve("items"),
            "put cli/a hello world\n\nget cli/old\nget cli/absent\ndelete cli/doomed\n");
    int exit = run("batch", "--port", String.valueOf(node.port()), "--file", items.toString());
    assertThat(exit).as(err.toString()).isZero();
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(4);
    assertThat(lines[0]).startsWith("cli/a\t201\t\"");
    assertThat(lines[1]).isEqualTo("cli/old\t200\t" + tag + "\tkept");
    assertThat(lines[2]).isEqualTo("cli/absent\t404");
    assertThat(lines[3]).startsWith("cli/doomed\t202\t\"");
    assertThat(node.client().getUtf8("cli/a")).hasValue("hello world");
  }

  @Test
  void aLineItCannotReadExits2AndSendsNothing() throws Exception {
    Path items = Files.writeString(dir.resolve("bad"), "put cli/x 1\nfetch cli/x\n");
    int exit = run("batch", "--port", String.valueOf(node.port()), "--file", items.toString());
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("line 2");
    assertThat(node.client().getUtf8("cli/x")).isEmpty();
  }

  @Test
  void scanPrintsAtMostLimitKeys() {
    for (int i = 0; i < 5; i++) {
      node.client().put("sc/" + i, "v");
    }
    assertThat(run("scan", "--port", String.valueOf(node.port()), "--limit", "2", "sc/")).isZero();
    assertThat(out.toString().split("\n")).containsExactly("sc/0", "sc/1");
  }
}
