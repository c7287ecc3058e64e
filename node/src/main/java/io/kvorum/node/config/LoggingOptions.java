package io.kvorum.node.config;

import java.util.Locale;
import picocli.CommandLine.Option;

/** The flag of "Logging" in docs/configuration.md: the format of the log lines. */
final class LoggingOptions {
  @Option(
      names = "--log-format",
      defaultValue = "${env:KVORUM_LOG_FORMAT:-text}",
      paramLabel = "FORMAT",
      description =
          "text, or json: one JSON object per line for log collectors. Default: ${DEFAULT-VALUE}.")
  String logFormat;

  LogFormat logFormat() {
    String value = logFormat == null ? "" : logFormat.trim().toLowerCase(Locale.ROOT);
    return switch (value) {
      case "text" -> LogFormat.TEXT;
      case "json" -> LogFormat.JSON;
      default -> throw new ConfigException("--log-format", logFormat, "must be text or json");
    };
  }
}
