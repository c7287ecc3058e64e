package io.kvorum.node.cli.data;

import io.kvorum.api.ChangeEvent;
import io.kvorum.api.ChangeWatch;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvorum-node watch PREFIX}: follows the changes of every key starting with PREFIX (SPEC
 * §12), one line per change as it happens ({@code put TAB key TAB value}, {@code delete TAB key}),
 * until stopped (Ctrl-C); resumes by itself when a node fails ({@link ChangeWatch}). With {@code
 * --cursors} each line starts with its cursor, from which {@code --since} resumes later.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Prints every change to keys starting with PREFIX as it happens, until stopped.",
    footer = {
      "",
      "Exit codes: 1 the feed cannot go on (e.g. --since older than the retention: 410),"
          + " 2 bad options. Runs until stopped otherwise."
    })
public final class WatchCommand extends DataCommand {
  @Parameters(index = "0", paramLabel = "PREFIX", description = "The keys' common prefix.")
  String prefix;

  @Option(
      names = "--since",
      paramLabel = "CURSOR",
      description = "Resume after this cursor (from --cursors or a range read). Default: now.")
  String since;

  @Option(names = "--cursors", description = "Start each line with its cursor, then a TAB.")
  boolean cursors;

  @Override
  int run(KvorumClient kv, PrintWriter out) throws InterruptedException {
    byte[] start = utf8(prefix);
    try (ChangeWatch watch = kv.watch(start, successor(start), since, event -> print(event, out))) {
      watch.ended().get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException cause
          ? cause
          : new IllegalStateException(e.getCause());
    }
    return ExitCodes.OK;
  }

  private void print(ChangeEvent event, PrintWriter out) {
    if (!event.isChange()) {
      return;
    }
    String line =
        event.kind() == ChangeEvent.Kind.PUT
            ? "put\t" + event.keyUtf8() + "\t" + event.valueUtf8()
            : "delete\t" + event.keyUtf8();
    out.println(cursors ? event.cursor() + "\t" + line : line);
    out.flush();
  }

  /** The first key after every key starting with {@code prefix}; null if there is none. */
  static byte[] successor(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] next = Arrays.copyOf(prefix, i + 1);
        next[i]++;
        return next;
      }
    }
    return null;
  }
}
