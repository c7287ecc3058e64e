package io.kvorum.node.cli.data;

import io.kvorum.api.KvorumClient;
import io.kvorum.api.Versioned;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvorum-node get KEY}: writes the key's value, as its raw bytes, to stdout. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Prints a key's value (its raw bytes) on stdout.",
    footer = {"", "Exit codes: 0 found, 1 refused or unreachable, 2 bad options, 3 absent."})
public final class GetCommand extends DataCommand {
  @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
  String key;

  @Option(
      names = "--linearizable",
      description =
          "Read through the key's Paxos acceptors, finishing any conditional write in progress"
              + " (as Cassandra's SERIAL); not with --ack or --from.")
  boolean linearizable;

  @Override
  int run(KvorumClient kv, PrintWriter out) throws Exception {
    if (linearizable && (ack != null || from != null)) {
      throw new IllegalArgumentException("--linearizable takes no --ack or --from");
    }
    Optional<byte[]> value =
        linearizable
            ? kv.getLinearizable(utf8(key)).map(Versioned::value)
            : kv.get(utf8(key), consistency());
    if (value.isEmpty()) {
      spec.commandLine().getErr().println("kvorum-node get: " + key + ": absent");
      return ExitCodes.ABSENT;
    }
    out.flush();
    System.out.write(value.get());
    System.out.flush();
    return ExitCodes.OK;
  }
}
