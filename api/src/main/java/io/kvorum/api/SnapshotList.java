package io.kvorum.api;

import java.util.List;
import java.util.Map;

/**
 * A node's snapshots ({@code GET /v0/snapshots}): the whole ones, oldest first, and apart the
 * snapshot directories whose manifest is missing, empty or unreadable, which can only be deleted.
 *
 * @param snapshots the whole snapshots, oldest first
 * @param damaged the damaged ones, by name (none from a node that does not list them)
 */
public record SnapshotList(List<Snapshot> snapshots, List<Damaged> damaged) {
  public SnapshotList {
    snapshots = List.copyOf(snapshots);
    damaged = List.copyOf(damaged);
  }

  /**
   * A snapshot directory that cannot be used, only deleted.
   *
   * @param name its name
   * @param path its directory on the node
   * @param problem what is wrong with it
   */
  public record Damaged(String name, String path, String problem) {}

  /** The listing {@code json} holds; null if it has no {@code snapshots} array. */
  static SnapshotList of(Map<String, Object> json) {
    List<Map<String, Object>> whole = Json.objects(json, "snapshots");
    if (whole == null) {
      return null;
    }
    List<Map<String, Object>> damaged = Json.objects(json, "damaged");
    return new SnapshotList(
        whole.stream().map(Snapshot::of).toList(),
        damaged == null
            ? List.of()
            : damaged.stream()
                .map(
                    d ->
                        new Damaged(
                            Json.string(d, "name"),
                            Json.string(d, "path"),
                            Json.string(d, "problem")))
                .toList());
  }
}
