package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.duration;
import static io.kvorum.node.config.FlagValues.intSize;

import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags of "Requests" in docs/configuration.md: how long a request waits, how large it is. */
final class RequestOptions {
  @Option(
      names = "--request-timeout",
      defaultValue = "${env:KVORUM_REQUEST_TIMEOUT:-1s}",
      paramLabel = "DURATION",
      description =
          "How long a request waits for its ack replicas before answering 504."
              + " Default: ${DEFAULT-VALUE}.")
  String requestTimeout;

  @Option(
      names = "--max-value-size",
      defaultValue = "${env:KVORUM_MAX_VALUE_SIZE:-16MiB}",
      paramLabel = "SIZE",
      description = "Largest value (request body); larger get 413. Default: ${DEFAULT-VALUE}.")
  String maxValueSize;

  @Option(
      names = "--max-key-size",
      defaultValue = "${env:KVORUM_MAX_KEY_SIZE:-1KiB}",
      paramLabel = "SIZE",
      description = "Longest key in bytes; longer get 400. Default: ${DEFAULT-VALUE}.")
  String maxKeySize;

  Duration requestTimeout() {
    return duration("--request-timeout", requestTimeout);
  }

  NodeConfig.Limits limits() {
    return new NodeConfig.Limits(
        intSize("--max-value-size", maxValueSize), intSize("--max-key-size", maxKeySize));
  }
}
