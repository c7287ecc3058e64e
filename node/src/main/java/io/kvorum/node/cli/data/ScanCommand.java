package io.kvorum.node.cli.data;

import io.kvorum.api.KvorumClient;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.RangeReader;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvorum-node scan START [END]}: the keys of a range across the cluster, one a line, or
 * {@code key TAB value} lines with {@code --values}; streamed, so any size prints in flat memory. A
 * range cut off by a node's failure ends with exit 1 and the reason on stderr, after the lines that
 * came.
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Prints the keys (or key TAB value lines) from START (inclusive) to END (exclusive).",
    footer = {
      "",
      "Exit codes: 0 the whole range, 1 refused, unreachable or cut off, 2 bad options."
    })
public final class ScanCommand extends DataCommand {
  @Parameters(index = "0", paramLabel = "START", description = "The first key (inclusive).")
  String start;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "END",
      description = "The key to stop before (exclusive); none: to the last key.")
  String end;

  @Option(
      names = "--values",
      description = "Print key TAB value (values as UTF-8 text) instead of keys alone.")
  boolean values;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description =
          "Print at most the first N entries; the next page starts at the last key followed by a"
              + " zero byte.")
  int limit;

  @Override
  int run(KvorumClient kv, PrintWriter out) {
    try (RangeReader range = kv.range(utf8(start), end == null ? null : utf8(end), limit)) {
      while (range.hasNext()) {
        RangeEntry entry = range.next();
        out.println(values ? entry.keyUtf8() + "\t" + entry.valueUtf8() : entry.keyUtf8());
      }
    } finally {
      out.flush();
    }
    return ExitCodes.OK;
  }
}
