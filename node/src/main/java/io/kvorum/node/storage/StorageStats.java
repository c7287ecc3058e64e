package io.kvorum.node.storage;

/**
 * Storage figures for monitoring.
 *
 * @param estimatedKeys approximate number of stored records (tombstones included)
 * @param diskBytes bytes of live data files on disk
 * @param memoryBytes bytes held in write buffers (memtables) and caches
 * @param pendingCompactionBytes bytes the engine estimates it still has to compact
 * @param writeBatches atomic batches written since the engine opened (group commits: each one
 *     write-ahead-log append)
 * @param recordsWritten records written in those batches; over {@code writeBatches}, how many
 *     records shared an append on average
 * @param writeBatchesAtOnce of those batches, how many were written on the thread that asked for
 *     them (run to completion) rather than handed to a storage thread
 * @param delayedWriteBytesPerSecond the rate the engine slows writes to while it stalls them
 *     (compaction behind, too many memtables), 0 when it does not
 * @param writesStopped whether the engine stops writes altogether until compaction catches up
 */
public record StorageStats(
    long estimatedKeys,
    long diskBytes,
    long memoryBytes,
    long pendingCompactionBytes,
    long writeBatches,
    long recordsWritten,
    long writeBatchesAtOnce,
    long delayedWriteBytesPerSecond,
    boolean writesStopped) {}
