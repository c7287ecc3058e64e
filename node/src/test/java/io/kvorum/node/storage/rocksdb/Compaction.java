package io.kvorum.node.storage.rocksdb;

import org.rocksdb.FlushOptions;

/** Compaction on demand, for tests of what compaction keeps. */
final class Compaction {
  private Compaction() {}

  /** Flushes every memtable of {@code engine} and compacts all its records. */
  static void compact(RocksDbStorageEngine engine) {
    engine.guarded(
        "compact",
        null,
        () -> {
          // Records live in the default column family.
          try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            engine.db().flush(flush, engine.db().getDefaultColumnFamily());
          }
          engine.db().compactRange(engine.db().getDefaultColumnFamily());
          return null;
        });
  }
}
