package io.kvorum.node.cli.data;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvorum-node put KEY [VALUE | --file F | < stdin]}: stores a value, prints its ETag. */
@Command(
    name = "put",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Stores a value: the argument, a file's bytes, or stdin; prints its version's ETag.",
    footer = {"", "Exit codes: 0 stored, 1 refused or unreachable, 2 bad options."})
public final class PutCommand extends DataCommand {
  @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
  String key;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "VALUE",
      description = "The value (UTF-8); without it and --file, stdin is read to its end.")
  String value;

  @Option(names = "--file", paramLabel = "FILE", description = "Store this file's bytes.")
  Path file;

  @Option(
      names = "--ttl",
      paramLabel = "DURATION",
      description = "How long the value lives (ISO-8601, e.g. PT30S, or 500ms, 30s, 5m, 2h, 7d).")
  String ttl;

  @Override
  int run(KvorumClient kv, PrintWriter out) throws Exception {
    if (value != null && file != null) {
      throw new IllegalArgumentException("give VALUE or --file, not both");
    }
    byte[] bytes =
        value != null
            ? utf8(value)
            : file != null ? Files.readAllBytes(file) : System.in.readAllBytes();
    out.println(kv.put(utf8(key), bytes, consistency(), ttl == null ? null : duration(ttl)));
    out.flush();
    return ExitCodes.OK;
  }

  static Duration duration(String text) {
    String t = text.strip();
    if (t.startsWith("P") || t.startsWith("p")) {
      return Duration.parse(t);
    }
    int split = 0;
    while (split < t.length() && Character.isDigit(t.charAt(split))) {
      split++;
    }
    if (split == 0) {
      throw new IllegalArgumentException("--ttl '" + text + "': not a duration");
    }
    long amount = Long.parseLong(t.substring(0, split));
    return switch (t.substring(split)) {
      case "", "s" -> Duration.ofSeconds(amount);
      case "ms" -> Duration.ofMillis(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      case "d" -> Duration.ofDays(amount);
      default -> throw new IllegalArgumentException("--ttl '" + text + "': not a duration");
    };
  }
}
