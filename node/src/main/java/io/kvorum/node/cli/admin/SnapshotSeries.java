package io.kvorum.node.cli.admin;

import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Snapshot;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The snapshots {@code kvorum-node snapshot --prefix P --keep K} takes and prunes: those named P
 * followed by a UTC time {@code yyyyMMdd-HHmmss}, which sort by name as by time. A snapshot named
 * otherwise (an operator's own, or another series') is never deleted.
 */
final class SnapshotSeries {
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,48}");

  private final Pattern series;
  private final String prefix;

  SnapshotSeries(String prefix) {
    this.prefix = prefix;
    this.series = Pattern.compile(Pattern.quote(prefix) + "\\d{8}-\\d{6}");
  }

  /** Whether {@code prefix} leaves room in a snapshot name (64 characters) for the time. */
  static boolean validPrefix(String prefix) {
    return PREFIX.matcher(prefix).matches();
  }

  /** The name of this series' snapshot taken at {@code time} ({@code yyyyMMdd-HHmmss}). */
  String name(String time) {
    return prefix + time;
  }

  /**
   * Deletes on every member this series' snapshots but the newest {@code keep} (asking each with
   * {@code node}'s token and TLS), printing each one deleted; returns the ids of the members where
   * the list or a deletion failed (each named on {@code err} with the reason).
   */
  List<String> prune(
      NodeAddress node, List<String[]> members, int keep, PrintWriter out, PrintWriter err) {
    List<String> failed = new ArrayList<>();
    for (String[] m : members) {
      String id = m[0];
      String baseUrl = m[1];
      String problem;
      try (NodeConnection member = node.connect(baseUrl, NodeAddress.TIMEOUT)) {
        problem = prune(member, id, keep, out);
      } catch (Unreachable e) {
        problem = e.getMessage();
      }
      if (problem != null) {
        failed.add(id);
        err.println(
            "kvorum-node snapshot: " + id + " did not delete its older snapshots: " + problem);
      }
    }
    out.flush();
    return failed;
  }

  /** Null once the member holds at most {@code keep} of the series, else why not. */
  private String prune(NodeConnection member, String id, int keep, PrintWriter out) {
    List<String> ours = new ArrayList<>();
    try {
      for (Snapshot snapshot : member.ask(KvorumAdmin::snapshots).snapshots()) {
        if (snapshot.name() != null && series.matcher(snapshot.name()).matches()) {
          ours.add(snapshot.name());
        }
      }
    } catch (KvorumClientException e) {
      return member.baseUrl()
          + KvorumApi.PATH_SNAPSHOTS
          + " answered "
          + NodeConnection.describe(e);
    }
    ours.sort(Comparator.reverseOrder());
    List<String> problems = new ArrayList<>();
    for (String old : ours.subList(Math.min(keep, ours.size()), ours.size())) {
      try {
        // False: gone already (another run pruned it), which is what was asked.
        member.ask(admin -> admin.deleteSnapshot(old));
        out.println(id + "  deleted " + old);
      } catch (KvorumClientException e) {
        problems.add(old + ": " + NodeConnection.describe(e));
      }
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }
}
