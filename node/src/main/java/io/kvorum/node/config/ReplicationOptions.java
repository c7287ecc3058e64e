package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.count;
import static io.kvorum.node.config.FlagValues.duration;

import picocli.CommandLine.Option;

/** The flags of "Replication" in docs/configuration.md: hinted handoff and catch-up at start. */
final class ReplicationOptions {
  @Option(
      names = "--hint-window",
      defaultValue = "${env:KVORUM_HINT_WINDOW:-3h}",
      paramLabel = "DURATION",
      description =
          "How long a write a replica missed is kept for it (hinted handoff). Default:"
              + " ${DEFAULT-VALUE}.")
  String hintWindow;

  @Option(
      names = "--max-hints-per-peer",
      defaultValue = "${env:KVORUM_MAX_HINTS_PER_PEER:-1000000}",
      paramLabel = "N",
      description = "Hints kept for one peer at most; more are dropped. Default: ${DEFAULT-VALUE}.")
  String maxHintsPerPeer;

  @Option(
      names = "--catch-up-timeout",
      defaultValue = "${env:KVORUM_CATCH_UP_TIMEOUT:-10s}",
      paramLabel = "DURATION",
      description =
          "At start, the longest wait for peers to deliver their hints before the node reports"
              + " ready. Default: ${DEFAULT-VALUE}.")
  String catchUpTimeout;

  NodeConfig.Replication replication() {
    return new NodeConfig.Replication(
        duration("--hint-window", hintWindow),
        count("--max-hints-per-peer", maxHintsPerPeer, true),
        duration("--catch-up-timeout", catchUpTimeout),
        TestIntervals.fromSystemProperty(TestIntervals.HINT_REPLAY),
        TestIntervals.fromSystemProperty(TestIntervals.BREAKER_OPEN_FOR));
  }
}
