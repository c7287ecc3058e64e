package io.kvorum.api;

import java.util.Map;

/**
 * One file of a node's snapshot, as {@code GET /v0/snapshots/NAME/files} lists it: what a backup
 * copies off the node (SPEC §11).
 *
 * @param name its name in the snapshot's directory
 * @param bytes its size
 * @param sha256 its SHA-256, lower-case hex
 */
public record SnapshotFile(String name, long bytes, String sha256) {
  static SnapshotFile of(Map<String, Object> json) {
    return new SnapshotFile(
        Json.string(json, "name"), Json.number(json, "bytes"), Json.string(json, "sha256"));
  }
}
