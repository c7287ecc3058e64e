package io.kvorum.node.cli.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.LocalCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code kvorum-node watch PREFIX}: the lines it prints, and how it ends when it cannot go on. */
@Timeout(60)
class WatchCommandTest {
  @Test
  void printsEachChangeOfThePrefixAsALineUntilStopped() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1)) {
      StringWriter out = new StringWriter();
      AtomicInteger exit = new AtomicInteger(-1);
      Thread watching =
          Thread.ofPlatform()
              .start(
                  () ->
                      exit.set(
                          command(out)
                              .execute(
                                  "watch",
                                  "--port",
                                  String.valueOf(cluster.node(1).port()),
                                  "--cursors",
                                  "w/")));
      await().pollDelay(Duration.ofMillis(500)).until(() -> true);
      cluster.client(1).put("w/a", "1");
      cluster.client(1).put("x/other", "2");
      cluster.client(1).delete("w/a");

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(out.toString().lines())
                      .map(line -> line.substring(line.indexOf('\t') + 1))
                      .containsExactly("put\tw/a\t1", "delete\tw/a"));
      assertThat(out.toString().lines()).allMatch(line -> line.matches("[0-9]+\t.*"));
      watching.interrupt();
      watching.join();
    }
  }

  @Test
  void aCursorPastTheRetentionEndsWithExitOneAndTheReason() {
    try (LocalCluster cluster = LocalCluster.start(1)) {
      StringWriter err = new StringWriter();
      long old = (System.currentTimeMillis() - Duration.ofDays(2).toMillis()) << 16;
      CommandLine command = command(new StringWriter());
      command.setErr(new PrintWriter(err, true));

      int exit =
          command.execute(
              "watch",
              "--port",
              String.valueOf(cluster.node(1).port()),
              "--since",
              String.valueOf(old),
              "w/");

      assertThat(exit).isEqualTo(1);
      assertThat(err.toString()).contains("410").contains("read the range again");
    }
  }

  @Test
  void thePrefixEndsBeforeItsSuccessor() {
    assertThat(WatchCommand.successor("ab".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("ac".getBytes(StandardCharsets.UTF_8));
    assertThat(WatchCommand.successor(new byte[] {1, (byte) 0xFF})).isEqualTo(new byte[] {2});
    assertThat(WatchCommand.successor(new byte[] {(byte) 0xFF})).isNull();
  }

  private static CommandLine command(StringWriter out) {
    CommandLine command = KvorumNode.commandLine();
    command.setOut(new PrintWriter(out, true));
    return command;
  }
}
