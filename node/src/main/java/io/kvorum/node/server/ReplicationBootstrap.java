package io.kvorum.node.server;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.antientropy.HashTrees;
import io.kvorum.node.antientropy.TreeKeepingStorageEngine;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Owners;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.LocalReplicaService;
import io.kvorum.node.storage.MemoryFirstStorageEngine;
import io.kvorum.node.storage.PurgeSweeper;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Builds what keeps a node's replicas in step: hinted handoff, anti-entropy with the hash trees
 * every write feeds, membership changes and their streaming, the purge of dead records, and the
 * service the node offers its peers. Starts nothing that runs by itself: the server starts the
 * periodic work once the node is assembled.
 */
public final class ReplicationBootstrap {
  private ReplicationBootstrap() {}

  /**
   * Builds the replication of a node whose storage and cluster are {@code storage}, {@code
   * cluster}.
   */
  public static NodeReplication build(
      NodeConfig config, NodeStorage storage, NodeCluster cluster, NodeResources resources) {
    Membership membership = cluster.membership();
    PeerTransport transport = cluster.transport();
    HybridLogicalClock clock = storage.clock();
    ClusterState state = membership.state();
    HashTrees trees =
        new HashTrees(config.nodeId(), state.ids(), membership.owners().readPlacement());
    TreeKeepingStorageEngine treeKeeper = new TreeKeepingStorageEngine(storage.records(), trees);
    StorageEngine engine =
        resources.threading().memoryFirstReads()
            ? new MemoryFirstStorageEngine(treeKeeper)
            : treeKeeper;
    NodeConfig.Replication replication = config.replication();
    HintedHandoff handoff =
        new HintedHandoff(
            storage.local().hints(),
            transport,
            clock::wallMillis,
            new HintedHandoff.Settings(
                replication.hintWindow(),
                replication.maxHintsPerPeer(),
                replication.catchUpTimeout()),
            ClusterBootstrap.peers(config.nodeId(), state),
            resources.registry());
    transport.onPeerReachable(handoff::welcome);
    AntiEntropy antiEntropy =
        resources.closeOnStop(
            new AntiEntropy(
                trees,
                engine,
                transport,
                new AntiEntropy.Settings(
                    config.repair().bytesPerSecond(),
                    config.repair().interval(),
                    replication.hintWindow().plus(config.requestTimeout())),
                resources.timers(),
                // Now, not the last version issued: that stands still while nothing is written.
                () -> Math.max(clock.current().physicalMillis(), clock.wallMillis()),
                resources.registry()));
    followMembership(config.nodeId(), membership, treeKeeper, antiEntropy);
    MembershipService changes =
        resources.closeOnStop(
            new MembershipService(
                membership,
                storage.membershipFiles(),
                engine,
                transport,
                new MembershipService.Settings(
                    config.repair().bytesPerSecond(),
                    MembershipService.GOSSIP_INTERVAL,
                    config.requestTimeout().multipliedBy(2)),
                resources.timers(),
                clock::wallMillis));
    PurgeSweeper sweeper =
        new PurgeSweeper(
            engine,
            config.storage().tombstoneGrace(),
            clock::wallMillis,
            antiEntropy::purgeableBefore,
            resources.registry());
    LocalReplicaService served =
        new LocalReplicaService(
            engine, handoff, clock, config.maxClockOffset(), antiEntropy, changes);
    return new NodeReplication(engine, handoff, antiEntropy, changes, sweeper, served);
  }

  /**
   * Anti-entropy follows the membership: when the members that own data change, its per-peer trees
   * are rebuilt over them (and fed by every write from then on).
   */
  private static void followMembership(
      NodeId self, Membership membership, TreeKeepingStorageEngine keeper, AntiEntropy repair) {
    AtomicReference<List<NodeId>> owners = new AtomicReference<>(membership.state().owners());
    membership.onChange(
        state -> {
          List<NodeId> now = state.owners();
          if (!now.equals(owners.getAndSet(now))) {
            HashTrees next = new HashTrees(self, state.ids(), new Owners(state).readPlacement());
            keeper.use(next);
            repair.rebuild(next);
          }
        });
  }
}
