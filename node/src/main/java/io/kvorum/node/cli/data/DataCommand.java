package io.kvorum.node.cli.data;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A user's data sub-command ({@code get}, {@code put}, {@code delete}, {@code scan}, {@code batch})
 * on {@link KvorumClient}: one request to the node at {@code --host}/{@code --port}, its outcome in
 * one line on stderr when it is not data. Exit 0 done, 1 refused or unreachable, 3 (get) the key is
 * absent.
 */
abstract class DataCommand implements Callable<Integer> {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Option(
      names = "--ack",
      paramLabel = "N",
      description = "Replicas that must answer. Default: the node's (a majority of --from).")
  Integer ack;

  @Option(
      names = "--from",
      paramLabel = "N",
      description = "Replicas the request goes to. Default: the node's (min(RF, cluster size)).")
  Integer from;

  /** The request, on a client of the node; answers the exit code. */
  abstract int run(KvorumClient kv, PrintWriter out) throws Exception;

  Consistency consistency() {
    return new Consistency(ack, from);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Integer call() throws Exception {
    String command = spec.name();
    PrintWriter err = spec.commandLine().getErr();
    try (KvorumClient kv = node.client(DEADLINE)) {
      return run(kv, spec.commandLine().getOut());
    } catch (KvorumClientException e) {
      err.println("kvorum-node " + command + ": " + node.baseUrl() + " answered " + e.getMessage());
    } catch (UncheckedIOException e) {
      err.println(
          "kvorum-node "
              + command
              + ": cannot reach the node at "
              + node.baseUrl()
              + ": "
              + rootMessage(e));
    } catch (IllegalArgumentException e) {
      err.println("kvorum-node " + command + ": " + e.getMessage());
      return ExitCodes.CONFIG;
    }
    return ExitCodes.FAILURE;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
  }
}
