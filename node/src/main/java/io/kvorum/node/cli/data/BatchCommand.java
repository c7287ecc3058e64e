package io.kvorum.node.cli.data;

import io.kvorum.api.BatchItem;
import io.kvorum.api.BatchItemResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvorum-node batch [--file F | < stdin]}: many gets, puts and deletes, one a line ({@code
 * get KEY}, {@code put KEY VALUE}, {@code delete KEY}), sent as batches of up to 100 ({@code POST
 * /v0/batch}); one result line per item, in order: {@code KEY TAB STATUS TAB ETAG [TAB VALUE]}, or
 * {@code KEY TAB STATUS TAB detail} for an item that failed.
 */
@Command(
    name = "batch",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Runs gets, puts and deletes read one a line (get KEY, put KEY VALUE, delete KEY).",
    footer = {
      "",
      "Prints KEY TAB STATUS TAB ETAG [TAB VALUE] per item, in order (404: absent).",
      "Exit codes: 0 every item done, 1 an item failed or the node refused or is unreachable,"
          + " 2 bad options or lines."
    })
public final class BatchCommand extends DataCommand {
  @Option(names = "--file", paramLabel = "FILE", description = "Read the items from this file.")
  Path file;

  @Option(
      names = "--ttl",
      paramLabel = "DURATION",
      description = "How long the puts' values live (as put's --ttl).")
  String ttl;

  @Override
  int run(KvorumClient kv, PrintWriter out) throws Exception {
    Duration lives = ttl == null ? null : PutCommand.duration(ttl);
    List<BatchItem> items;
    try (Reader in =
        file != null
            ? Files.newBufferedReader(file, StandardCharsets.UTF_8)
            : new InputStreamReader(System.in, StandardCharsets.UTF_8)) {
      items = items(new BufferedReader(in), lives);
    }
    boolean failed = false;
    for (BatchItemResult result : kv.batch(items, consistency())) {
      StringBuilder line = new StringBuilder(result.key()).append('\t').append(result.status());
      if (!result.succeeded()) {
        failed = true;
        line.append('\t').append(result.failure().getMessage());
      } else if (result.etag() != null) {
        line.append('\t').append(result.etag());
        result.foundUtf8().ifPresent(value -> line.append('\t').append(value));
      }
      out.println(line);
    }
    out.flush();
    return failed ? ExitCodes.FAILURE : ExitCodes.OK;
  }

  private static List<BatchItem> items(BufferedReader in, Duration ttl) throws Exception {
    List<BatchItem> items = new ArrayList<>();
    int number = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.strip().split("\\s+", 3);
      BatchItem item =
          switch (parts[0]) {
            case "get" -> parts.length == 2 ? BatchItem.get(parts[1]) : null;
            case "delete" -> parts.length == 2 ? BatchItem.delete(parts[1]) : null;
            case "put" ->
                parts.length >= 2
                    ? BatchItem.put(parts[1], utf8(parts.length == 3 ? parts[2] : ""), ttl)
                    : null;
            default -> null;
          };
      if (item == null) {
        throw new IllegalArgumentException(
            "line " + number + ": expected 'get KEY', 'put KEY VALUE' or 'delete KEY': " + line);
      }
      items.add(item);
    }
    return items;
  }
}
