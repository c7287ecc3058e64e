package io.kvorum.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The options of the idle and warmup phases ({@code bench/run.sh}'s mixin). */
final class StartupOptions {
  @Option(
      names = "--idle-window",
      description =
          "How long the idle phase measures the nodes without requests, just after start and once"
              + " warm (default: 30s).")
  Duration idleWindow = Duration.ofSeconds(30);

  @Option(
      names = "--warmup-rate",
      description =
          "Rate (PUT, req/s) the warmup phase holds from a cold start (default: ${DEFAULT-VALUE}).")
  int warmUpRate = 1000;

  @Option(
      names = "--warmup-duration",
      description = "How long the warmup phase holds its rate (default: 180s).")
  Duration warmUpDuration = Duration.ofSeconds(180);

  @Option(
      names = "--warmup-window",
      description = "Length of each point of the warm-up curve (default: 10s).")
  Duration warmUpWindow = Duration.ofSeconds(10);

  /** The plan these options give; validated. */
  StartupPlan plan() {
    return new StartupPlan(idleWindow, warmUpRate, warmUpDuration, warmUpWindow);
  }

  /** What the idle and warmup phases of {@code phases} do, for the report's setup. */
  String describe(List<String> phases) {
    StringBuilder md = new StringBuilder();
    if (phases.contains("idle")) {
      md.append(
          String.format(
              Locale.ROOT,
              " **idle**: the nodes' CPU over %d s without requests, just after the cluster is"
                  + " ready and again once warm (after the other phases and a settle pause).",
              idleWindow.toSeconds()));
    }
    if (phases.contains("warmup")) {
      md.append(
          String.format(
              Locale.ROOT,
              " **warmup**: before the preload, on the fresh cluster, PUT at %,d/s for %d s,"
                  + " measured in windows of %d s.",
              warmUpRate,
              warmUpDuration.toSeconds(),
              warmUpWindow.toSeconds()));
    }
    return md.toString();
  }
}
