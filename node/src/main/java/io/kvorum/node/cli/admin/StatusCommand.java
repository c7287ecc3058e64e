package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node status}: the cluster as one node sees it ({@code GET /v0/cluster}), printed as
 * a table. Exits 0 when the node answered, 1 when it could not be reached or did not answer the
 * cluster view.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Prints the cluster as a running node sees it: its members, their state and load.",
    description = {
      "",
      "Asks one node's HTTP API (GET /v0/cluster) and prints every member with its state (up,"
          + " down, joining, leaving), address, records, disk use, the hints the node asked holds"
          + " for it and the progress of any streaming. Ask more than one node: each shows what it"
          + " sees.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 the node answered, 1 it could not be reached or failed, 2 bad options."
    })
public final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    JsonNode cluster;
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      cluster = connection.cluster();
    } catch (Unreachable e) {
      err.println("kvorum-node status: " + e.getMessage());
      return ExitCodes.FAILURE;
    } catch (KvorumClientException e) {
      err.println(
          "kvorum-node status: "
              + node.baseUrl()
              + KvorumApi.PATH_CLUSTER
              + " answered "
              + NodeConnection.describe(e));
      return ExitCodes.FAILURE;
    }
    ClusterTable.render(cluster).forEach(out::println);
    out.flush();
    return ExitCodes.OK;
  }
}
