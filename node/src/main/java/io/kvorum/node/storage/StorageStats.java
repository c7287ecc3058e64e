package io.kvorum.node.storage;

/**
 * Storage figures for monitoring.
 *
 * @param estimatedKeys approximate number of stored records (tombstones included)
 * @param diskBytes bytes of live data files on disk
 * @param memoryBytes bytes held in write buffers (memtables) and caches
 * @param pendingCompactionBytes bytes the engine estimates it still has to compact
 */
public record StorageStats(
    long estimatedKeys, long diskBytes, long memoryBytes, long pendingCompactionBytes) {}
