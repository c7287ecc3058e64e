package io.kvorum.node.core;

import java.util.Objects;

/**
 * One file of a snapshot, as a backup copies it off the node (SPEC §11).
 *
 * @param name its name in the snapshot's directory (no path)
 * @param bytes its size
 * @param sha256 its SHA-256, lower-case hex
 */
public record SnapshotFile(String name, long bytes, String sha256) {
  public SnapshotFile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sha256, "sha256");
    if (bytes < 0) {
      throw new IllegalArgumentException("a file has no negative size");
    }
  }
}
