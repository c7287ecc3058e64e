package io.kvorum.node.cli.admin;

import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.MembershipChangeResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code kvorum-node remove NODE}: asks a live node to remove a dead one from the cluster ({@code
 * POST /v0/cluster/remove?node=ID}, SPEC §8), as Cassandra's {@code nodetool removenode} does. The
 * node's keys are copied from their surviving replicas to their new owners; this command returns
 * once the change has started, or with {@code --wait} once it is complete.
 */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Removes a dead node from the cluster; its keys are re-replicated from the others.",
    description = {
      "",
      "Asks the live node at --host and --port to remove NODE, a member that is gone for good"
          + " (its disk lost, its machine retired, or skipped when scaling down): NODE leaves the"
          + " membership at once and each of its keys is copied from its surviving replicas to the"
          + " node that takes its place. Decommission a node that still runs instead: it hands its"
          + " own records over. A NODE that died while it was joining has its join aborted: the"
          + " cluster keeps the members it had. Follow the change with 'kvorum-node status', or"
          + " give --wait to see its progress and a summary once it is complete.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 the removal started (with --wait: complete) or the join aborted, 1 the"
          + " node refused it (e.g. another change in progress) or could not be reached, 2 bad"
          + " options, 4 (--wait) the change ended without NODE leaving, or no node answered for"
          + " 30 s."
    })
public final class RemoveCommand extends MembershipChangeCommand {
  /** The path this command posts to. */
  static final String PATH = KvorumApi.PATH_REMOVE;

  @Parameters(index = "0", paramLabel = "NODE", description = "The id of the node to remove.")
  String removed;

  @Override
  String command() {
    return "remove";
  }

  @Override
  MembershipChangeResult request(KvorumAdmin node) {
    return node.remove(removed);
  }

  @Override
  String started(String who) {
    return who
        + " removes "
        + removed
        + " from the cluster: its keys are copied from their surviving replicas to their"
        + " new owners. Follow it with 'kvorum-node status'.";
  }
}
