package io.kvorum.node.testing;

import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.server.ClusterBootstrap;
import io.kvorum.node.server.EdgeBootstrap;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.server.NodeCluster;
import io.kvorum.node.server.NodeReplication;
import io.kvorum.node.server.NodeResources;
import io.kvorum.node.server.NodeStorage;
import io.kvorum.node.server.ReplicationBootstrap;
import io.kvorum.node.server.Threading;
import io.kvorum.node.storage.Snapshots;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A node's parts as the server's own bootstraps build them ({@link ClusterBootstrap}, {@link
 * ReplicationBootstrap}, {@link EdgeBootstrap}), on storage, a clock and a transport the test gives
 * (in memory, faulty, scripted), without HTTP, serving nothing and running nothing by itself: for
 * tests of one layer that need less than a whole node and must start in milliseconds. The cluster
 * is the one {@code config}'s topology seeds. Closing stops what the parts started, but not the
 * storage or the transport given.
 */
public final class NodeParts implements AutoCloseable {
  private final NodeConfig config;
  private final NodeResources resources;
  private final NodeStorage storage;
  private final NodeCluster cluster;
  private final NodeReplication replication;

  private NodeParts(
      NodeConfig config,
      NodeResources resources,
      NodeStorage storage,
      NodeCluster cluster,
      NodeReplication replication) {
    this.config = config;
    this.resources = resources;
    this.storage = storage;
    this.cluster = cluster;
    this.replication = replication;
  }

  /**
   * Builds the parts of the node {@code config} describes on {@code local} and {@code clock},
   * calling its peers through {@code transport}; the cluster state is kept in a temporary
   * directory.
   */
  public static NodeParts build(
      NodeConfig config, LocalStorage local, HybridLogicalClock clock, PeerTransport transport) {
    NodeResources resources = new NodeResources(config, Threading.fromSystemProperties());
    try {
      Path dir = Files.createTempDirectory("kvorum-parts");
      dir.toFile().deleteOnExit();
      NodeStorage storage =
          new NodeStorage(
              dir,
              local,
              local.records(),
              clock,
              new MembershipStore(dir),
              ClusterState.seed(config.topology().members()),
              Snapshots.NONE);
      NodeCluster cluster = ClusterBootstrap.over(config, storage, transport, resources);
      NodeReplication replication = ReplicationBootstrap.build(config, storage, cluster, resources);
      return new NodeParts(config, resources, storage, cluster, replication);
    } catch (IOException e) {
      resources.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      resources.close();
      throw e;
    }
  }

  public NodeCluster cluster() {
    return cluster;
  }

  public NodeReplication replication() {
    return replication;
  }

  public NodeResources resources() {
    return resources;
  }

  /** What the node serves its peers, but membership (no gossip, joins or handoffs). */
  public PeerHandlers served() {
    return ReplicationBootstrap.served(config, storage, replication, Optional.empty());
  }

  /** The node's coordinator of client requests. */
  public Coordinator coordinator() {
    return EdgeBootstrap.coordinator(config, storage, cluster, replication, resources);
  }

  /** The change feeds of a node built of these parts. */
  public ChangeFeeds changeFeeds() {
    return EdgeBootstrap.changeFeeds(config, storage, cluster, replication, resources);
  }

  /** What operators ask of the cluster through this node. */
  public ClusterAdmin admin() {
    return EdgeBootstrap.admin(config, cluster, replication);
  }

  @Override
  public void close() {
    resources.close();
  }
}
