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
                "before",
                Path.of("n.jar"),
                List.of("-Dkvorum.threads=before", "-Dx=1", "-Dy=2"),
                List.of()),
            new BenchCommand.Jar("after", Path.of("n.jar"), List.of(), List.of()));
  }

  @Test
  void oneJarUnderTwoLabelsGetsEachLabelsOwnNodeFlags() {
    BenchCommand command = new BenchCommand();
    command.jarSpecs = List.of("plain=n.jar", "mtls=n.jar");
    command.jarFlagSpecs = List.of("mtls=--tls-cert=c.pem --tls-key=k.pem", "mtls=--tls-ca=ca.pem");

    assertThat(command.jars())
        .containsExactly(
            new BenchCommand.Jar("plain", Path.of("n.jar"), List.of(), List.of()),
            new BenchCommand.Jar(
                "mtls",
                Path.of("n.jar"),
                List.of(),
                List.of("--tls-cert=c.pem", "--tls-key=k.pem", "--tls-ca=ca.pem")));
  }

  @Test
  void flagsForALabelNoJarHasAreRefused() {
    BenchCommand command = new BenchCommand();
    command.jarSpecs = List.of("base=n.jar");
    command.jarFlagSpecs = List.of("bsae=--sync-writes=true");

    assertThatThrownBy(command::jars)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--jar-flag bsae=--sync-writes=true");
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
