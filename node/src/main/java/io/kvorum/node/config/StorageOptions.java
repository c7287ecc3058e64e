package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.count;
import static io.kvorum.node.config.FlagValues.duration;
import static io.kvorum.node.config.FlagValues.durationOrZero;
import static io.kvorum.node.config.FlagValues.positiveSize;
import static io.kvorum.node.config.FlagValues.size;
import static io.kvorum.node.config.FlagValues.walSync;

import io.kvorum.node.core.NodeId;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags of "Storage" in docs/configuration.md: where data lives, RocksDB's tuning, purging. */
final class StorageOptions {
  @Option(
      names = "--data-dir",
      defaultValue = "${env:KVORUM_DATA_DIR}",
      paramLabel = "DIR",
      description = "Where RocksDB and hints live. Default: ./data/<node-id>.")
  String dataDir;

  @Option(
      names = "--sync-writes",
      defaultValue = "${env:KVORUM_SYNC_WRITES:-100ms}",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "INTERVAL|BOOL",
      description =
          "When the write-ahead log is fsynced: at least every INTERVAL (a power cut loses at"
              + " most that much acknowledged work), true (before each write is acknowledged),"
              + " or false (left to the OS: a power cut may lose everything since the last"
              + " memtable flush). Default: ${DEFAULT-VALUE}.")
  String syncWrites;

  @Option(
      names = "--storage-threads",
      defaultValue = "${env:KVORUM_STORAGE_THREADS:-0}",
      paramLabel = "N",
      description =
          "Threads running storage calls that may touch the disk (writes, reads not answered"
              + " from memory, scans, maintenance). Default: one per core, at least 2.")
  String storageThreads;

  @Option(
      names = "--storage-queue",
      defaultValue = "${env:KVORUM_STORAGE_QUEUE:-4096}",
      paramLabel = "N",
      description =
          "Storage calls that may wait for a thread, and writes that may wait for the next"
              + " group commit; beyond that requests get 503 with Retry-After."
              + " Default: ${DEFAULT-VALUE}.")
  String storageQueue;

  @Option(
      names = "--block-cache-size",
      defaultValue = "${env:KVORUM_BLOCK_CACHE_SIZE:-128MiB}",
      paramLabel = "SIZE",
      description = "RocksDB block cache for reads. Default: ${DEFAULT-VALUE}.")
  String blockCacheSize;

  @Option(
      names = "--write-buffer-size",
      defaultValue = "${env:KVORUM_WRITE_BUFFER_SIZE:-64MiB}",
      paramLabel = "SIZE",
      description =
          "RocksDB memtable size: writes collect in memory up to this before a flush to disk."
              + " Default: ${DEFAULT-VALUE}.")
  String writeBufferSize;

  @Option(
      names = "--max-disk-usage",
      defaultValue = "${env:KVORUM_MAX_DISK_USAGE:-0}",
      paramLabel = "SIZE",
      description =
          "Refuse writes (507) once data files reach this size; 0 for no limit but the disk."
              + " Default: ${DEFAULT-VALUE}.")
  String maxDiskUsage;

  @Option(
      names = "--tombstone-grace",
      defaultValue = "${env:KVORUM_TOMBSTONE_GRACE:-10d}",
      paramLabel = "DURATION",
      description =
          "How long deletes and expired values are remembered before they are purged."
              + " Default: ${DEFAULT-VALUE}.")
  String tombstoneGrace;

  @Option(
      names = "--sweep-interval",
      defaultValue = "${env:KVORUM_SWEEP_INTERVAL:-10m}",
      paramLabel = "DURATION",
      description = "How often the purge sweeper runs. Default: ${DEFAULT-VALUE}.")
  String sweepInterval;

  @Option(
      names = "--paxos-purge-grace",
      defaultValue = "${env:KVORUM_PAXOS_PURGE_GRACE:-1h}",
      paramLabel = "DURATION",
      description =
          "How long a conditional write's Paxos state is kept at least before it may be purged;"
              + " ballots older than this are refused. Default: ${DEFAULT-VALUE}.")
  String paxosPurgeGrace;

  @Option(
      names = "--change-retention",
      defaultValue = "${env:KVORUM_CHANGE_RETENTION:-24h}",
      paramLabel = "DURATION",
      description =
          "How long change feeds (GET /v0/changes) can be resumed from: every change a node"
              + " applies is logged and kept this long; 0 captures no changes and serves no feeds."
              + " Default: ${DEFAULT-VALUE}.")
  String changeRetention;

  /** The storage threads: {@code --storage-threads}, or one per core and at least 2 for 0. */
  int threads(int cores) {
    int threads = count("--storage-threads", storageThreads, true);
    return threads == 0 ? Math.max(2, cores) : threads;
  }

  Path dataDir(NodeId id) {
    return dataDir == null || dataDir.isBlank() ? Path.of("data", id.value()) : Path.of(dataDir);
  }

  /** The storage settings, with the thread count {@link #threads} gave. */
  NodeConfig.Storage storage(int threads) {
    return new NodeConfig.Storage(
        walSync("--sync-writes", syncWrites),
        threads,
        count("--storage-queue", storageQueue, false),
        positiveSize("--block-cache-size", blockCacheSize),
        positiveSize("--write-buffer-size", writeBufferSize),
        size("--max-disk-usage", maxDiskUsage),
        duration("--tombstone-grace", tombstoneGrace),
        duration("--sweep-interval", sweepInterval),
        duration("--paxos-purge-grace", paxosPurgeGrace),
        durationOrZero("--change-retention", changeRetention),
        TestIntervals.fromSystemProperty(TestIntervals.FEED_STALL));
  }

  /**
   * Checks that {@code --paxos-purge-grace} outlasts every round still under way: a request's
   * rounds ({@code requestTimeout}) plus a clock offset each way between proposer and acceptor.
   */
  void checkPaxosPurgeGrace(Duration grace, Duration rounds) {
    if (grace.compareTo(rounds) <= 0) {
      throw new ConfigException(
          "--paxos-purge-grace",
          paxosPurgeGrace,
          "must be longer than the request timeout plus twice --max-clock-offset ("
              + rounds.toMillis()
              + "ms); make it much longer");
    }
  }
}
