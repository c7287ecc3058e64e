package io.kvorum.node.cli.admin;

import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.MembershipChangeResult;
import picocli.CommandLine.Command;

/**
 * {@code kvorum-node decommission}: asks a node to leave the cluster ({@code POST
 * /v0/cluster/decommission}, SPEC §8). The node streams its records to their new owners, leaves the
 * membership and exits 0; this command returns once the node has started, as soon as it answers
 * 202, or with {@code --wait} once it left. Exits 1 when the node refused (a change already in
 * progress: 409) or could not be reached, 4 when {@code --wait} saw the change end otherwise.
 */
@Command(
    name = "decommission",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Makes a running node leave the cluster, streaming its data to the others first.",
    description = {
      "",
      "Asks the node at --host and --port (by default this machine's, as with kubectl exec into"
          + " a pod) to decommission itself: it becomes 'leaving', streams its records to the nodes"
          + " that own them without it, leaves the membership and its process exits 0. The command"
          + " returns as soon as the node has started; follow it with 'kvorum-node status' on"
          + " another node, or give --wait to see its progress and a summary once it left (run"
          + " it from outside the leaving node's container, which stops with the node). One"
          + " membership change runs at a time: a node refuses while another is in progress.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 the decommission started (with --wait: the node left), 1 the node refused"
          + " it or could not be reached, 2 bad options, 4 (--wait) the change ended without the"
          + " node leaving, or no node answered for 30 s."
    })
public final class DecommissionCommand extends MembershipChangeCommand {
  /** The path this command posts to. */
  static final String PATH = KvorumApi.PATH_DECOMMISSION;

  @Override
  String command() {
    return "decommission";
  }

  @Override
  MembershipChangeResult request(KvorumAdmin node) {
    return node.decommission();
  }

  @Override
  String started(String who) {
    return who
        + " is leaving the cluster: it streams its records to their new owners, then"
        + " leaves and its process exits 0. Follow it with 'kvorum-node status' on another"
        + " node.";
  }
}
