package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.duration;
import static io.kvorum.node.config.FlagValues.positiveSize;

import picocli.CommandLine.Option;

/** The flags of "Anti-entropy" in docs/configuration.md: how fast and how often repair runs. */
final class RepairOptions {
  @Option(
      names = "--repair-rate",
      defaultValue = "${env:KVORUM_REPAIR_RATE:-8MiB}",
      paramLabel = "SIZE",
      description =
          "Bytes per second this node sends at most for anti-entropy (records it pushes to peers"
              + " and records peers pull from it). Default: ${DEFAULT-VALUE}.")
  String repairRate;

  @Option(
      names = "--repair-interval",
      defaultValue = "${env:KVORUM_REPAIR_INTERVAL:-1m}",
      paramLabel = "DURATION",
      description =
          "How long after an anti-entropy round over every peer started the next one starts (at"
              + " once if the round took longer). Default: ${DEFAULT-VALUE}.")
  String repairInterval;

  NodeConfig.Repair repair() {
    return new NodeConfig.Repair(
        positiveSize("--repair-rate", repairRate), duration("--repair-interval", repairInterval));
  }
}
