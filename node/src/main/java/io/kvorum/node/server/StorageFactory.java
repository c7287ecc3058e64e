package io.kvorum.node.server;

import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.rocksdb.RocksDbAcceptorStore;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;

/** Opens a node's storage; tests substitute engines that fail or stall on purpose. */
@FunctionalInterface
public interface StorageFactory {
  /**
   * Opens the records and hints in {@code directory}, doing their I/O on {@code executor} (and, as
   * {@code threading} lets it, small writes on the caller's thread).
   *
   * @throws io.kvorum.node.core.StorageException if the storage cannot be opened
   */
  LocalStorage open(
      Path directory, NodeConfig.Storage settings, ExecutorService executor, Threading threading);

  /** The production engine: RocksDB in {@code directory}, hints beside the records. */
  StorageFactory ROCKSDB =
      (directory, s, executor, threading) -> {
        RocksDbStorageEngine engine =
            RocksDbStorageEngine.open(
                directory,
                new RocksDbSettings(
                    s.syncWrites(),
                    s.blockCacheBytes(),
                    s.writeBufferBytes(),
                    s.maxDiskBytes(),
                    s.queueSize(),
                    threading.writesAtOnce(),
                    threading.quietBackground(),
                    false),
                executor,
                s.capturesChanges());
        try {
          return new LocalStorage(engine, engine.hints(), new RocksDbAcceptorStore(engine.paxos()));
        } catch (RuntimeException e) {
          engine.close();
          throw e;
        }
      };
}
