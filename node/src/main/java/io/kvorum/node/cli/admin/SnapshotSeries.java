package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumApi;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
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

  private final Pattern member;
  private final String prefix;

  SnapshotSeries(String prefix) {
    this.prefix = prefix;
    this.member = Pattern.compile(Pattern.quote(prefix) + "\\d{8}-\\d{6}");
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
      NodeAddress node, List<String[]> members, int keep, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    List<String> failed = new ArrayList<>();
    for (String[] m : members) {
      String id = m[0];
      String baseUrl = m[1];
      String problem;
      try {
        problem = prune(node, id, baseUrl, keep, out);
      } catch (NodeAddress.Unreachable e) {
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
  private String prune(NodeAddress node, String id, String baseUrl, int keep, PrintWriter out)
      throws InterruptedException {
    HttpResponse<byte[]> listed =
        node.send(baseUrl, "GET", KvorumApi.PATH_SNAPSHOTS, NodeAddress.TIMEOUT);
    JsonNode body = SnapshotCommand.json(listed.body());
    if (listed.statusCode() != 200 || body == null || !body.path("snapshots").isArray()) {
      return baseUrl + KvorumApi.PATH_SNAPSHOTS + " answered " + describe(listed, body);
    }
    List<String> ours = new ArrayList<>();
    for (JsonNode snapshot : body.path("snapshots")) {
      String name = snapshot.path("name").asText();
      if (member.matcher(name).matches()) {
        ours.add(name);
      }
    }
    ours.sort(Comparator.reverseOrder());
    List<String> problems = new ArrayList<>();
    for (String old : ours.subList(Math.min(keep, ours.size()), ours.size())) {
      HttpResponse<byte[]> deleted =
          node.send(baseUrl, "DELETE", KvorumApi.PATH_SNAPSHOTS + "/" + old, NodeAddress.TIMEOUT);
      // 404: gone already (another run pruned it), which is what was asked.
      if (deleted.statusCode() == 204 || deleted.statusCode() == 404) {
        out.println(id + "  deleted " + old);
      } else {
        problems.add(old + ": " + describe(deleted, SnapshotCommand.json(deleted.body())));
      }
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  private static String describe(HttpResponse<byte[]> answer, JsonNode body) {
    return NodeAddress.describe(answer.statusCode(), body);
  }
}
