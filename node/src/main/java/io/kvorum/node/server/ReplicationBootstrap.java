package io.kvorum.node.server;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.antientropy.HashTrees;
import io.kvorum.node.antientropy.RepairProtocol;
import io.kvorum.node.antientropy.TreeKeepingStorageEngine;
import io.kvorum.node.changes.ChangesProtocol;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.clock.FutureVersions;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.Acceptor;
import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.PaxosRepair;
import io.kvorum.node.consensus.PaxosSweeper;
import io.kvorum.node.consensus.Proposers;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.ChangeRepair;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipProtocol;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.replica.LocalReplicas;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.replication.CatchUpProtocol;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.storage.MemoryFirstStorageEngine;
import io.kvorum.node.storage.PurgeSweeper;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Zone;
import io.kvorum.node.transport.PeerHandlers;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Builds what keeps a node's replicas in step: hinted handoff, anti-entropy with the hash trees
 * every write feeds, membership changes and their streaming, the purge of dead records and of
 * settled Paxos states, and the service the node offers its peers. Starts nothing that runs by
 * itself: the server starts the periodic work once the node is assembled.
 */
public final class ReplicationBootstrap {
  private ReplicationBootstrap() {}

  /**
   * Builds the replication of a node whose storage and cluster are {@code storage} and {@code
   * cluster}, closed with {@code resources}.
   */
  public static NodeReplication build(
      NodeConfig config, NodeStorage storage, NodeCluster cluster, NodeResources resources) {
    Membership membership = cluster.membership();
    HybridLogicalClock clock = storage.clock();
    ClusterState state = membership.state();
    HashTrees trees =
        new HashTrees(config.nodeId(), state.ids(), membership.owners().ownerPlacement());
    TreeKeepingStorageEngine treeKeeper = new TreeKeepingStorageEngine(storage.records(), trees);
    StorageEngine engine =
        resources.threading().memoryFirstReads()
            ? new MemoryFirstStorageEngine(treeKeeper)
            : treeKeeper;
    HintedHandoff handoff = hintedHandoff(config, storage, cluster, resources);
    AntiEntropy antiEntropy =
        resources.closeOnStop(
            new AntiEntropy(
                trees,
                engine,
                cluster.transport(),
                new AntiEntropy.Settings(
                    config.repair().bytesPerSecond(),
                    config.repair().interval(),
                    config.replication().hintWindow().plus(config.requestTimeout())),
                resources.timers(),
                // Now, not the last version issued: that stands still while nothing is written.
                () -> Math.max(clock.current().physicalMillis(), clock.wallMillis()),
                resources.nanoTime(),
                resources.registry()));
    followMembership(config.nodeId(), membership, treeKeeper, antiEntropy);
    PaxosRepair paxosRepair =
        new PaxosRepair(
            membership,
            storage.local().acceptors(),
            cluster.transport(),
            // The coordinator's default from: the replicas that decide a key's conditional writes.
            () -> Math.min(config.membership().replicationFactor(), membership.owners().size()),
            resources.registry());
    MembershipService changes =
        membershipChanges(config, storage, cluster, resources, engine, paxosRepair);
    PurgeSweeper sweeper =
        new PurgeSweeper(
            engine,
            config.storage().tombstoneGrace(),
            clock::wallMillis,
            antiEntropy::purgeableBefore,
            resources.registry());
    Acceptor acceptor =
        new Acceptor(
            engine, storage.local().acceptors(), config.storage().syncWrites().everyWrite());
    PaxosSweeper paxosSweeper = paxosSweeper(config, storage, engine, resources);
    return new NodeReplication(
        engine,
        handoff,
        antiEntropy,
        changes,
        sweeper,
        acceptor,
        paxosSweeper,
        paxosRepair,
        new Proposers.Served());
  }

  /** The purge of this node's acceptor states below the ballot floor. */
  private static PaxosSweeper paxosSweeper(
      NodeConfig config, NodeStorage storage, StorageEngine engine, NodeResources resources) {
    return new PaxosSweeper(
        engine,
        storage.local().acceptors(),
        config.storage().paxosPurgeGrace(),
        storage.clock()::wallMillis,
        resources.registry());
  }

  /**
   * The node's part in membership changes over {@code engine}: gossip and admissions on a thread of
   * their own, Paxos repair ({@code repair}), streaming and sweeps on another, its pauses and
   * deadlines on the timer thread, measured on the system's monotonic clock.
   */
  private static MembershipService membershipChanges(
      NodeConfig config,
      NodeStorage storage,
      NodeCluster cluster,
      NodeResources resources,
      StorageEngine engine,
      ChangeRepair repair) {
    return resources.closeOnStop(
        new MembershipService(
            cluster.membership(),
            storage.membershipFiles(),
            engine,
            cluster.transport(),
            repair,
            new MembershipService.Settings(
                config.repair().bytesPerSecond(),
                config.membership().gossipInterval().orElse(MembershipService.GOSSIP_INTERVAL),
                config.membership().settleTime(config.requestTimeout())),
            resources.timers(),
            resources.ownThread("kvorum-membership-io"),
            resources.ownThread("kvorum-membership"),
            storage.clock()::wallMillis,
            resources.nanoTime()));
  }

  /**
   * What the node serves its peers: each protocol registers its handlers (its replicas, the hints
   * it holds, its Paxos acceptor, its anti-entropy, its clock, and {@code membership} when present:
   * the node's {@link NodeReplication#changes()}; tests of the transport alone serve none).
   */
  public static PeerHandlers served(
      NodeConfig config,
      NodeStorage storage,
      NodeReplication replication,
      Optional<MembershipService> membership) {
    PeerHandlers handlers = new PeerHandlers();
    FutureVersions future = new FutureVersions(storage.clock(), config.maxClockOffset());
    LocalReplicas replicas = new LocalReplicas(replication.storage(), future);
    ReplicaProtocol.serve(handlers, replicas);
    CatchUpProtocol.serve(handlers, replication.handoff());
    PaxosProtocol.serve(
        handlers,
        replication.acceptor(),
        future,
        replication.paxosRepair(),
        replication.proposals());
    RepairProtocol.serve(handlers, replication.antiEntropy());
    membership.ifPresent(changes -> MembershipProtocol.serve(handlers, changes));
    ClockProtocol.serve(handlers, storage.clock()::wallMillis, replicas::storageReport);
    ChangesProtocol.serve(handlers, replication.storage().changes());
    return handlers;
  }

  /** The hints this node keeps for its peers. */
  private static HintedHandoff hintedHandoff(
      NodeConfig config, NodeStorage storage, NodeCluster cluster, NodeResources resources) {
    NodeConfig.Replication replication = config.replication();
    HintedHandoff handoff =
        new HintedHandoff(
            storage.local().hints(),
            cluster.transport(),
            (node, key, record) ->
                cluster.membership().owners().replicates(node, key, record.replicas()),
            storage.clock()::wallMillis,
            new HintedHandoff.Settings(
                replication.hintWindow(),
                replication.maxHintsPerPeer(),
                replication.catchUpTimeout()),
            ClusterBootstrap.peers(config.nodeId(), cluster.membership().state()),
            resources.registry(),
            resources.timers(),
            resources.nanoTime());
    return handoff;
  }

  /**
   * Anti-entropy follows the membership: when the members that own data change, or the zones they
   * are in (a member moved, which places keys anew), its per-peer trees are rebuilt over them (and
   * fed by every write from then on).
   */
  private static void followMembership(
      NodeId self, Membership membership, TreeKeepingStorageEngine keeper, AntiEntropy repair) {
    AtomicReference<Map<NodeId, Zone>> owners =
        new AtomicReference<>(membership.state().ownerZones());
    membership.onChange(
        state -> {
          Map<NodeId, Zone> now = state.ownerZones();
          if (!now.equals(owners.getAndSet(now))) {
            HashTrees next = new HashTrees(self, state.ids(), new Owners(state).ownerPlacement());
            keeper.use(next);
            repair.rebuild(next);
          }
        });
  }
}
