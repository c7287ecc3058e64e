package io.kvorum.node.server;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.storage.Snapshots;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.ClusterState;
import java.nio.file.Path;

/**
 * What a node found and opened in its data directory ({@link StorageBootstrap}).
 *
 * @param dataDir the data directory, checked writable
 * @param local the records and hints as the engine opened them
 * @param records the records, metered ({@code kvorum_storage_*}); the replication layer adds what
 *     it keeps beside every write
 * @param clock the hybrid logical clock, resumed from its persisted ceiling
 * @param membershipFiles where the node keeps its cluster state
 * @param clusterState the cluster state the node starts with
 * @param snapshots this node's snapshots ({@code snapshots/} in the data directory)
 */
public record NodeStorage(
    Path dataDir,
    LocalStorage local,
    StorageEngine records,
    HybridLogicalClock clock,
    MembershipStore membershipFiles,
    ClusterState clusterState,
    Snapshots snapshots) {}
