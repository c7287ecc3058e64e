package io.kvorum.node.core;

/**
 * What a snapshot holds, written beside its files as {@code manifest.json} (SPEC §11).
 *
 * @param name the snapshot's name
 * @param node the id of the node it was taken on
 * @param takenAt when, ISO-8601 UTC
 * @param tookMillis how long taking it took
 * @param versionsUpTo the node's hybrid logical clock when it was taken: every record in it has a
 *     version at most this (a record written later has a greater one)
 * @param records RocksDB's estimate of the records it holds (tombstones included)
 * @param bytes bytes of its files, most of them hard links shared with the live database
 * @param format the on-disk record format of its database ({@code KVORUM-FORMAT})
 * @param release the kvorum release that took it
 * @param path where it is, absolute
 */
public record SnapshotManifest(
    String name,
    String node,
    String takenAt,
    long tookMillis,
    long versionsUpTo,
    long records,
    long bytes,
    String format,
    String release,
    String path) {}
