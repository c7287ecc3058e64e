package io.kvorum.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
  @Test
  void oneJarUnderTwoLabelsGetsEachLabelsOwnJvmOptions() {
    BenchCommand command = new BenchCommand();
    command.jarSpecs = List.of("before=n.jar", "after=n.jar");
    command.jarJvmSpecs = List.of("before=-Dkvorum.threads=before  -Dx=1", "before=-Dy=2");

    assertThat(command.jars())
        .containsExactly(
            new BenchCommand.Jar(
                "before", Path.of("n.jar"), List.of("-Dkvorum.threads=before", "-Dx=1", "-Dy=2")),
            new BenchCommand.Jar("after", Path.of("n.jar"), List.of()));
  }

  @Test
  void jvmOptionsForALabelNoJarHasAreRefused() {
    BenchCommand command = new BenchCommand();
    command.jarSpecs = List.of("base=n.jar");
    command.jarJvmSpecs = List.of("bsae=-Dx=1");

    assertThatThrownBy(command::jars)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--jar-jvm bsae=-Dx=1");
  }
}
