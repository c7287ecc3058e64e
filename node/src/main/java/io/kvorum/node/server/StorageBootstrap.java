package io.kvorum.node.server;

import io.kvorum.node.clock.FileCeilingStore;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.storage.MeteredStorageEngine;
import io.kvorum.node.storage.Snapshots;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.storage.WalSyncer;
import io.kvorum.node.storage.rocksdb.RocksDbSnapshots;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens what a node keeps in its data directory: the stored cluster state (or the one {@code
 * --peers} seeds), the records and hints, and the clock's ceiling.
 */
public final class StorageBootstrap {
  private static final Logger log = LoggerFactory.getLogger(StorageBootstrap.class);

  private StorageBootstrap() {}

  /**
   * Opens the node's storage with {@code factory}, closing it with {@code resources}.
   *
   * @param wall the node's wall clock, Unix milliseconds
   * @throws ConfigException if the data directory cannot be used (unwritable, in use by another
   *     process, holding a database that cannot be opened) or the node left its cluster
   */
  public static NodeStorage open(
      NodeConfig config, StorageFactory factory, LongSupplier wall, NodeResources resources) {
    Path dataDir = prepareDataDir(config.dataDir());
    MembershipStore files = new MembershipStore(dataDir);
    ClusterState state = initialClusterState(config, files);
    LocalStorage local = resources.closeOnStop(openStorage(config, factory, dataDir, resources));
    syncDirectory(dataDir); // the name of db/, which a first start just made
    syncPeriodically(config.storage().syncWrites(), local, resources);
    // Remote timestamps are followed only within the max clock offset: a node whose clock is
    // further ahead must not drag the others' versions to where their replicas refuse them.
    HybridLogicalClock clock =
        HybridLogicalClock.start(
            new FileCeilingStore(dataDir),
            wall,
            HybridLogicalClock.CEILING_WINDOW,
            config.maxClockOffset());
    return new NodeStorage(
        dataDir,
        local,
        new MeteredStorageEngine(local.records(), resources.registry()),
        clock,
        files,
        state,
        snapshots(config, local, dataDir, clock, resources));
  }

  /**
   * Syncs the engine's write-ahead log every interval of {@code --sync-writes INTERVAL} on a thread
   * of its own ({@code kvorum-wal-sync}), stopped before the engine closes.
   */
  private static void syncPeriodically(WalSync sync, LocalStorage local, NodeResources resources) {
    if (sync.periodic()) {
      WalSyncer.start(
          local.records()::syncWal,
          sync.interval(),
          resources.ownThread("kvorum-wal-sync"),
          resources.registry());
    }
  }

  /**
   * Snapshots of a RocksDB engine in {@code snapshots/}, taken on a thread of their own (a
   * checkpoint flushes the memtables); none for the engines of tests.
   */
  private static Snapshots snapshots(
      NodeConfig config,
      LocalStorage local,
      Path dataDir,
      HybridLogicalClock clock,
      NodeResources resources) {
    if (!(local.records() instanceof RocksDbStorageEngine rocks)) {
      return Snapshots.NONE;
    }
    ExecutorService thread = resources.ownThread("kvorum-snapshots");
    RocksDbSnapshots snapshots =
        new RocksDbSnapshots(
            rocks,
            dataDir.resolve("snapshots"),
            config.nodeId().value(),
            () -> clock.current().value(),
            thread);
    snapshots.bindTo(resources.registry());
    return snapshots;
  }

  /**
   * The membership this node starts with: the one stored in its data directory if any (then {@code
   * --peers} and {@code --join} are ignored); else, with {@code --join}, none yet (epoch 0, until a
   * member admits it); else the one {@code --peers} seeds, stored at once.
   *
   * @throws ConfigException if this node left the cluster (decommissioned or removed)
   */
  private static ClusterState initialClusterState(NodeConfig config, MembershipStore files) {
    if (files.decommissioned()) {
      throw new ConfigException(
          "this node was decommissioned and left the cluster; wipe its data directory ("
              + config.dataDir()
              + ") to join again");
    }
    Optional<ClusterState> stored = files.load();
    NodeId self = config.nodeId();
    if (stored.isPresent()) {
      return storedState(config, stored.get());
    }
    if (config.membership().join().isPresent()) {
      Member me = config.topology().member(self).orElseThrow();
      return new ClusterState(
          0, List.of(new ClusterState.Node(me, MemberState.NORMAL)), Optional.empty());
    }
    ClusterState seeded = ClusterState.seed(config.topology().members());
    files.save(seeded);
    return seeded;
  }

  private static ClusterState storedState(NodeConfig config, ClusterState state) {
    NodeId self = config.nodeId();
    if (state.node(self).isEmpty()) {
      throw new ConfigException(
          "this node is no longer a member of its cluster (removed at epoch "
              + state.epoch()
              + "); wipe its data directory ("
              + config.dataDir()
              + ") to join again");
    }
    if (config.membership().join().isPresent()
        || !state.members().containsAll(config.topology().members())
        || state.members().size() != config.topology().members().size()) {
      log.info(
          "node {} uses the membership stored in its data directory (epoch {}: {}); --peers and"
              + " --join only seed a new node and are ignored",
          self,
          state.epoch(),
          state.ids());
    }
    return state;
  }

  private static LocalStorage openStorage(
      NodeConfig config, StorageFactory factory, Path dataDir, NodeResources resources) {
    try {
      return factory.open(
          dataDir.resolve("db"),
          config.storage(),
          resources.storageThreads(),
          resources.threading());
    } catch (StorageException e) {
      String reason = Failures.rootMessage(e);
      throw new ConfigException(
          "--data-dir",
          dataDir.toString(),
          reason.contains("LOCK")
              ? "in use by another running node (" + reason + ")"
              : "cannot open the database: " + reason);
    }
  }

  private static void syncDirectory(Path dir) {
    try {
      DurableFiles.DISK.sync(dir);
    } catch (IOException e) {
      throw new ConfigException("--data-dir", dir.toString(), "cannot be synced (" + e + ")");
    }
  }

  private static Path prepareDataDir(Path dir) {
    try {
      DurableFiles.DISK.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".write-probe", null);
      Files.delete(probe);
      return dir;
    } catch (IOException | SecurityException e) {
      throw new ConfigException(
          "--data-dir", dir.toString(), "not a writable directory (" + e + ")");
    }
  }
}
