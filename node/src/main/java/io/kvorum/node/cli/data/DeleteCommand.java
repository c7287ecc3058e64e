package io.kvorum.node.cli.data;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvorum-node delete KEY}: deletes a key, prints the tombstone's ETag. */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Deletes a key; prints the ETag of the deletion's version.",
    footer = {
      "",
      "Exit codes: 0 deleted (or already absent), 1 refused or unreachable, 2 bad options."
    })
public final class DeleteCommand extends DataCommand {
  @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
  String key;

  @Override
  int run(KvorumClient kv, PrintWriter out) {
    out.println(kv.delete(utf8(key), consistency()));
    out.flush();
    return ExitCodes.OK;
  }
}
