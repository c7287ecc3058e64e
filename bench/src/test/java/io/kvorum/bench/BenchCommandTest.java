package io.kvorum.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.DurationFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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

  private static BenchCommand parsed(String... args) {
    BenchCommand command = new BenchCommand();
    new CommandLine(command)
        .registerConverter(Duration.class, DurationFormat::parse)
        .parseArgs(args);
    return command;
  }

  @Test
  void severalHoldRatesAreHeldInTurnAndOneHoldRateIsTheOneRateCase() {
    assertThat(parsed("--hold-rates", "1000,4000,12000").validate().holdRates())
        .containsExactly(1000, 4000, 12000);
    assertThat(parsed("--hold-rate", "20000").validate().holdRates()).containsExactly(20000);
    assertThat(parsed().validate().holds()).isFalse();
  }

  @Test
  void holdRateAndHoldRatesTogetherAreRefused() {
    BenchCommand command = parsed("--hold-rate", "1000", "--hold-rates", "2000,4000");

    assertThatThrownBy(command::validate)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--hold-rate and --hold-rates");
  }

  @Test
  void aHoldRateThatIsNotPositiveIsRefused() {
    assertThatThrownBy(parsed("--hold-rates", "1000,0")::validate)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--hold-rates must be positive: 0");
  }

  @Test
  void theIdleAndWarmupPhasesAreKnownAndTakeTheirOptions() {
    BenchCommand command =
        parsed(
            "--phases",
            "idle,warmup,put",
            "--idle-window",
            "5s",
            "--warmup-rate",
            "200",
            "--warmup-duration",
            "40s",
            "--warmup-window",
            "5s");
    command.validate();

    assertThat(command.startupPlan())
        .isEqualTo(
            new StartupPlan(
                Duration.ofSeconds(5), 200, Duration.ofSeconds(40), Duration.ofSeconds(5)));
  }

  @Test
  void theWarmupDefaultsAreOneThousandPutsASecondForThreeMinutesInTenSecondWindows() {
    BenchCommand command = parsed();
    command.validate();

    assertThat(command.startupPlan())
        .isEqualTo(
            new StartupPlan(
                Duration.ofSeconds(30), 1000, Duration.ofSeconds(180), Duration.ofSeconds(10)));
  }

  @Test
  void aWarmupShorterThanThreeWindowsIsRefused() {
    assertThatThrownBy(parsed("--warmup-duration", "20s", "--warmup-window", "10s")::validate)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--warmup-duration (20 s) must hold at least three --warmup-window");
  }

  @Test
  void anUnknownPhaseIsRefused() {
    assertThatThrownBy(parsed("--phases", "idle,warm-up")::validate)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("unknown phase: warm-up");
  }
}
