package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.duration;

import java.time.Duration;
import picocli.CommandLine.Option;

/** The flag of "Lifecycle" in docs/configuration.md: how a node stops. */
final class LifecycleOptions {
  @Option(
      names = "--shutdown-grace",
      defaultValue = "${env:KVORUM_SHUTDOWN_GRACE:-10s}",
      paramLabel = "DURATION",
      description =
          "On SIGTERM, how long to wait for requests in flight before closing."
              + " Default: ${DEFAULT-VALUE}.")
  String shutdownGrace;

  Duration shutdownGrace() {
    return duration("--shutdown-grace", shutdownGrace);
  }
}
