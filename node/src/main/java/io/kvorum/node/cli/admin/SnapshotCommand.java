package io.kvorum.node.cli.admin;

import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Snapshot;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node snapshot}: takes snapshot N on every member of the cluster, as {@code nodetool
 * snapshot} does (SPEC §11). Learns the members from one node's {@code GET /v0/cluster}, asks each
 * one {@code POST /v0/snapshots?name=N} in turn, prints where each snapshot is, and exits 1 naming
 * every member that did not take it. With {@code --prefix} and {@code --keep} it takes one snapshot
 * of a series and then deletes the series' older ones on every member ({@link SnapshotSeries}).
 */
@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Takes a named snapshot on every member of the cluster and prints where each is.",
    description = {
      "",
      "Asks the node at --host and --port for the members of its cluster, then asks each member"
          + " to take snapshot --name of its data (a RocksDB checkpoint under"
          + " <data-dir>/snapshots/NAME, seconds for any size, writes go on). A member is reached"
          + " at the HTTP address it advertises (--advertise-http-address), unless --node gives"
          + " another. Copy the snapshots off the nodes"
          + " afterwards; 'kvorum-node load' streams them into any cluster.",
      "",
      "With --prefix P --keep K (as the Helm chart's CronJob runs it) the snapshot is named P"
          + " followed by the time now in UTC, and once every member took it the command deletes"
          + " on every member the snapshots named P followed by such a time but the newest K. No"
          + " other snapshot is ever deleted.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 every member took it (and deleted what --keep leaves out), 1 a member did"
          + " not take it or did not delete an older snapshot (each is named) or the cluster"
          + " could not be asked, 2 bad options."
    })
public final class SnapshotCommand implements Callable<Integer> {
  private static final Duration TAKE_TIMEOUT = Duration.ofMinutes(5);
  private static final DateTimeFormatter DEFAULT_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description =
          "The snapshot's name on every member: 1-64 letters, digits, '.', '_', '-'. Default: the"
              + " time now in UTC, e.g. 20261127-021500.")
  String name;

  @Mixin MemberAddresses addresses = new MemberAddresses();

  @Option(
      names = "--prefix",
      paramLabel = "PREFIX",
      description =
          "Names the snapshot PREFIX followed by the time now in UTC (e.g. nightly-20261127-021500),"
              + " one of the series --keep prunes: 1-48 letters, digits, '.', '_', '-'. Not with"
              + " --name.")
  String prefix;

  @Option(
      names = "--keep",
      paramLabel = "K",
      description =
          "Once every member took the snapshot, deletes on every member the snapshots of the"
              + " --prefix series but the newest K (at least 1). Needs --prefix.")
  Integer keep;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String invalid = invalidOption();
    if (invalid != null) {
      err.println("kvorum-node snapshot: " + invalid);
      return ExitCodes.CONFIG;
    }
    SnapshotSeries series = prefix == null ? null : new SnapshotSeries(prefix);
    String snapshot = snapshotName(series);
    List<String[]> members;
    try {
      members = members(err);
    } catch (Unreachable e) {
      err.println("kvorum-node snapshot: " + e.getMessage());
      return ExitCodes.FAILURE;
    }
    if (members == null) {
      return ExitCodes.FAILURE;
    }
    List<String> missing = new ArrayList<>();
    for (String[] member : members) {
      String outcome = take(member[1], snapshot);
      if (outcome.startsWith("/")) {
        out.println(member[0] + "  " + outcome);
      } else {
        missing.add(member[0]);
        err.println("kvorum-node snapshot: " + member[0] + " did not take it: " + outcome);
      }
    }
    out.flush();
    if (!missing.isEmpty()) {
      err.println(
          "kvorum-node snapshot: snapshot "
              + snapshot
              + " is missing on "
              + String.join(", ", missing)
              + " ("
              + (members.size() - missing.size())
              + " of "
              + members.size()
              + " members took it)");
      return ExitCodes.FAILURE;
    }
    err.println(
        "kvorum-node snapshot: snapshot "
            + snapshot
            + " taken on all "
            + members.size()
            + " members");
    return keep == null ? ExitCodes.OK : prune(series, members, out, err);
  }

  /** Prunes the series to --keep on every member; the exit code. */
  private int prune(
      SnapshotSeries series, List<String[]> members, PrintWriter out, PrintWriter err) {
    List<String> notPruned = series.prune(node, members, keep, out, err);
    if (notPruned.isEmpty()) {
      return ExitCodes.OK;
    }
    err.println(
        "kvorum-node snapshot: older snapshots of "
            + prefix
            + " are left on "
            + String.join(", ", notPruned)
            + " (--keep "
            + keep
            + " could not delete them there)");
    return ExitCodes.FAILURE;
  }

  private String snapshotName(SnapshotSeries series) {
    String now = DEFAULT_NAME.format(ZonedDateTime.now(ZoneOffset.UTC));
    return name != null ? name : series != null ? series.name(now) : now;
  }

  private String invalidOption() {
    if (prefix != null && name != null) {
      return "--prefix names the snapshot itself: give --prefix or --name, not both";
    }
    if (prefix != null && !SnapshotSeries.validPrefix(prefix)) {
      return "--prefix '" + prefix + "' must be 1-48 letters, digits, '.', '_' or '-'";
    }
    if (keep != null && prefix == null) {
      return "--keep deletes the older snapshots of a series: give its --prefix too";
    }
    if (keep != null && keep < 1) {
      return "--keep " + keep + " must be at least 1 (it keeps the snapshot just taken)";
    }
    return null;
  }

  /** Each member's id and HTTP base URL; null (with the reason printed) if the view is wrong. */
  private List<String[]> members(PrintWriter err) {
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      return addresses.of(connection.cluster(), node);
    } catch (KvorumClientException e) {
      err.println(
          "kvorum-node snapshot: "
              + node.baseUrl()
              + KvorumApi.PATH_CLUSTER
              + " answered "
              + NodeConnection.describe(e));
      return null;
    }
  }

  /** Where the member put the snapshot (a path), or why it did not take it. */
  private String take(String baseUrl, String snapshot) {
    Snapshot taken;
    try (NodeConnection member = node.connect(baseUrl, TAKE_TIMEOUT)) {
      taken = member.ask(admin -> admin.takeSnapshot(snapshot));
    } catch (Unreachable e) {
      return e.getMessage();
    } catch (KvorumClientException e) {
      return baseUrl + " answered " + NodeConnection.describe(e);
    }
    return String.format(
        Locale.ROOT,
        "%s  (%,d records, %.1f MB, %.1f s)",
        taken.path(),
        taken.records(),
        taken.bytes() / 1e6,
        taken.tookMillis() / 1e3);
  }
}
