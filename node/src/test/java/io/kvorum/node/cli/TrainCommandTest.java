package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code kvorum-node train}, the training run of the JDK's AOT cache: a real three-node cluster in
 * this JVM serves its workload without errors and leaves nothing behind. (That a JVM run with it
 * writes a cache the nodes use is shown by the build, which trains one, and ReadmeCommandsIT, whose
 * nodes run with it.)
 */
class TrainCommandTest {
  @Test
  void aShortTrainingRunIsServedWithoutErrorsAndLeavesNoData() throws IOException {
    List<Path> before = trainingDirectories();
    StringWriter out = new StringWriter();
    CommandLine cli = KvorumNode.commandLine();
    cli.setOut(new PrintWriter(out));

    int exit = cli.execute("train", "--seconds", "2");

    assertThat(exit).as(out.toString()).isZero();
    assertThat(out.toString())
        .matches(
            "(?s)kvorum-node train: [1-9][0-9]* requests in [0-9.]+ s, 0 answered with an error\\R");
    assertThat(trainingDirectories()).isEqualTo(before);
  }

  @Test
  void aRunOfNoTimeIsRefused() {
    StringWriter err = new StringWriter();
    CommandLine cli = KvorumNode.commandLine();
    cli.setErr(new PrintWriter(err));

    assertThat(cli.execute("train", "--seconds", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--seconds").contains("must be at least 1");
  }

  private static List<Path> trainingDirectories() throws IOException {
    try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("kvorum-train-"))
          .sorted()
          .toList();
    }
  }
}
