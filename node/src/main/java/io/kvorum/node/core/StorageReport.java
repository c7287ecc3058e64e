package io.kvorum.node.core;

/**
 * A node's storage as it reports it to its peers in its answers to pings, for operators (the
 * figures of {@code kvorum_storage_keys} and {@code kvorum_storage_disk_bytes}, shown per member by
 * {@code /v0/cluster}).
 *
 * @param records approximate number of stored records, tombstones included
 * @param diskBytes bytes of live data files on disk
 */
public record StorageReport(long records, long diskBytes) {}
