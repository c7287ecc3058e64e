package io.kvorum.api;

import java.time.Instant;
import java.util.Map;

/**
 * A snapshot of one node's data (SPEC §11), as its {@code manifest.json} and the answers of {@code
 * /v0/snapshots} describe it. A field the node did not send is null or 0.
 *
 * @param name its name, unique on its node
 * @param node the id of the node it was taken on
 * @param path its directory on that node, {@code <data-dir>/snapshots/NAME}
 * @param takenAt when it was taken
 * @param tookMillis how long taking it took
 * @param versionsUpTo the node's hybrid logical clock when it was taken: every record in it has a
 *     version at most this
 * @param records RocksDB's estimate of its records, tombstones included
 * @param bytes bytes of its files, most of them hard links shared with the live database
 * @param format the on-disk record format of its database
 * @param release the kvorum release that took it
 */
public record Snapshot(
    String name,
    String node,
    String path,
    Instant takenAt,
    long tookMillis,
    long versionsUpTo,
    long records,
    long bytes,
    String format,
    String release) {
  static Snapshot of(Map<String, Object> json) {
    return new Snapshot(
        Json.string(json, "name"),
        Json.string(json, "node"),
        Json.string(json, "path"),
        Json.instant(json, "takenAt"),
        Json.number(json, "tookMillis"),
        Json.number(json, "versionsUpTo"),
        Json.number(json, "records"),
        Json.number(json, "bytes"),
        Json.string(json, "format"),
        Json.string(json, "release"));
  }
}
