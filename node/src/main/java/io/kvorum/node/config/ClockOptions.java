package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.duration;

import java.time.Duration;
import picocli.CommandLine.Option;

/** The flag of "Time" in docs/configuration.md: the wall-clock offset the cluster tolerates. */
final class ClockOptions {
  @Option(
      names = "--max-clock-offset",
      defaultValue = "${env:KVORUM_MAX_CLOCK_OFFSET:-500ms}",
      paramLabel = "DURATION",
      description =
          "A node whose wall clock is further than this from a majority of its peers refuses to"
              + " coordinate writes (503) and reports not ready; a replica refuses a write whose"
              + " version is further than this ahead of its wall clock. Default: ${DEFAULT-VALUE}.")
  String maxClockOffset;

  Duration maxClockOffset() {
    return duration("--max-clock-offset", maxClockOffset);
  }
}
