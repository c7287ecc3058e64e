package io.kvorum.node.core;

import java.util.List;

/**
 * A node's snapshots as its disk holds them: the whole ones, oldest first, and the damaged ones
 * whose manifest cannot be read (a power cut before this release synced them, a disk error, a hand
 * that edited them), which are listed so that they can be seen and deleted, never used.
 *
 * @param whole the snapshots whose manifest reads, oldest first
 * @param damaged the snapshot directories whose manifest is missing, empty or unreadable, by name
 */
public record SnapshotListing(List<SnapshotManifest> whole, List<Damaged> damaged) {
  public SnapshotListing {
    whole = List.copyOf(whole);
    damaged = List.copyOf(damaged);
  }

  /** No snapshot at all. */
  public static final SnapshotListing EMPTY = new SnapshotListing(List.of(), List.of());

  /**
   * A snapshot directory that cannot be used.
   *
   * @param name its name (the directory's)
   * @param path where it is, absolute
   * @param problem what is wrong with it, for a person
   */
  public record Damaged(String name, String path, String problem) {}
}
