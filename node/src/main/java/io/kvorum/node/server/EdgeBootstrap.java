package io.kvorum.node.server;

import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.changes.FeedSettings;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.Acceptors;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.coordinator.SnapshotAdmin;
import io.kvorum.node.core.Failures;
import io.kvorum.node.gateway.GatewaySettings;
import io.kvorum.node.gateway.HttpGateway;
import io.kvorum.node.gateway.NodeStatus;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.replica.LocalReplicas;
import io.kvorum.node.replica.Replicas;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Opens a node's two edges: the inter-node server its peers call, and the coordinator behind the
 * HTTP API its clients call. A port that cannot be bound ends the start as invalid configuration,
 * naming its flag.
 */
public final class EdgeBootstrap {
  private EdgeBootstrap() {}

  /** Serves {@code replication}'s service to the peers through {@code interconnect}. */
  public static void servePeers(
      NodeConfig config,
      NodeStorage storage,
      NodeSecurity security,
      NodeReplication replication,
      Interconnect interconnect,
      NodeResources resources) {
    try {
      resources.closeOnStop(
          interconnect.serve(
              config,
              storage.clock(),
              ReplicationBootstrap.served(
                  config, storage, replication, Optional.of(replication.changes())),
              resources.grpcLoops(),
              security.tls(),
              resources.registry()));
    } catch (UncheckedIOException e) {
      throw config
          .grpcHost()
          .map(host -> new ConfigException("--grpc-host", host, bindFailure(e)))
          .orElseGet(
              () ->
                  new ConfigException(
                      "--grpc-port", String.valueOf(config.grpcPort()), bindFailure(e)));
    }
  }

  /**
   * Builds the coordinator and the cluster administration and serves them on the HTTP port.
   *
   * @param ready whether the node reports ready and serves client requests
   */
  public static NodeEdge serveClients(
      NodeConfig config,
      NodeStorage storage,
      NodeSecurity security,
      NodeCluster cluster,
      NodeReplication replication,
      NodeResources resources,
      BooleanSupplier ready) {
    Coordinator coordinator = coordinator(config, storage, cluster, replication, resources);
    ClusterAdmin admin = admin(config, cluster, replication);
    ChangeFeeds feeds = changeFeeds(config, storage, cluster, replication, resources);
    NodeConfig.Http http = config.http();
    HttpGateway gateway =
        resources.closeOnStop(
            new HttpGateway(
                new GatewaySettings(
                    http.host(),
                    http.port(),
                    config.limits().maxValueBytes(),
                    config.limits().maxKeyBytes(),
                    http.idleTimeout(),
                    resources.threading().inlineReplies()),
                config.tls().filter(NodeConfig.Tls::http).flatMap(t -> security.tls()),
                security
                    .clientTokens()
                    .<Supplier<AccessTokens>>map(file -> file::tokens)
                    .orElse(null),
                resources.httpLoops(),
                new HttpGateway.Services(
                    coordinator,
                    feeds,
                    admin,
                    new NodeStatus(config.nodeId().value(), ready),
                    resources.registry(),
                    new SnapshotAdmin(storage.snapshots()))));
    // Ended as the gateway drains; closed here too for a stop that does not drain.
    resources.closeOnStop(feeds);
    InetSocketAddress address;
    try {
      address = gateway.start();
    } catch (UncheckedIOException e) {
      throw new ConfigException("--http-port", String.valueOf(http.port()), bindFailure(e));
    }
    // Its peers learn it by gossip: operator tools and clients reach every member by it.
    String interNodeHost = config.topology().member(config.nodeId()).orElseThrow().host();
    cluster
        .membership()
        .advertise(http.advertised(address.getPort(), interNodeHost), storage.clock().wallMillis());
    return new NodeEdge(coordinator, admin, feeds, gateway, address);
  }

  /**
   * The coordinator and the cluster administration for clients in the same process, with no HTTP
   * port (a simulation's).
   */
  public static NodeEdge inProcess(
      NodeConfig config,
      NodeStorage storage,
      NodeCluster cluster,
      NodeReplication replication,
      NodeResources resources) {
    return new NodeEdge(
        coordinator(config, storage, cluster, replication, resources),
        admin(config, cluster, replication),
        resources.closeOnStop(changeFeeds(config, storage, cluster, replication, resources)),
        null,
        null);
  }

  /** The change feeds this node serves (SPEC §12), over every member's change log. */
  public static ChangeFeeds changeFeeds(
      NodeConfig config,
      NodeStorage storage,
      NodeCluster cluster,
      NodeReplication replication,
      NodeResources resources) {
    return new ChangeFeeds(
        config.nodeId(),
        () -> cluster.membership().owners(),
        config.membership().replicationFactor(),
        cluster.transport(),
        replication.storage().changes(),
        feedSettings(config),
        new ChangeFeeds.Clocks(
            storage.clock()::wallMillis,
            resources.nanoTime(),
            cluster.offsets()::spreadMillis,
            cluster.offsets()::beyondMax,
            cluster.offsets()::refusal),
        resources.registry());
  }

  private static FeedSettings feedSettings(NodeConfig config) {
    FeedSettings settings =
        FeedSettings.of(config.storage().changeRetention(), config.maxClockOffset());
    return config
        .storage()
        .feedStall()
        .map(stall -> settings.withConsumerBounds(settings.maxQueuedEvents(), stall))
        .orElse(settings);
  }

  /**
   * The data operations of client requests, coordinated by this node; also the rounds of its Paxos
   * repair ({@link NodeReplication#paxosRepair}).
   */
  public static Coordinator coordinator(
      NodeConfig config,
      NodeStorage storage,
      NodeCluster cluster,
      NodeReplication replication,
      NodeResources resources) {
    Coordinator coordinator =
        new Coordinator(
            cluster.membership(),
            replicas(config, cluster, replication),
            new Acceptors(config.nodeId(), replication.acceptor(), cluster.transport()),
            replication.handoff(),
            storage.clock(),
            cluster.offsets(),
            new RequestDeadline(
                config.requestTimeout(), resources.requestTimeouts(), resources.nanoTime()),
            resources.random(),
            resources.registry(),
            config.membership().replicationFactor());
    // A membership change's Paxos repair finishes a key's round as a linearizable read does.
    replication.paxosRepair().finishWith(coordinator::getLinearizable);
    // The conditional writes peers hand this node, as the key's proposer, run as its own.
    replication.proposals().runWith(coordinator::proposeHere);
    return coordinator;
  }

  /** What operators ask of the cluster through this node. */
  public static ClusterAdmin admin(
      NodeConfig config, NodeCluster cluster, NodeReplication replication) {
    return new ClusterAdmin(
        cluster.membership(),
        replicas(config, cluster, replication),
        node ->
            node.equals(config.nodeId())
                ? LocalReplicas.report(replication.storage())
                : cluster.pings().reportedStorage(node),
        replication.handoff(),
        cluster.offsets(),
        replication.antiEntropy(),
        replication.changes());
  }

  private static Replicas replicas(
      NodeConfig config, NodeCluster cluster, NodeReplication replication) {
    return new Replicas(config.nodeId(), replication.storage(), cluster.transport());
  }

  private static String bindFailure(UncheckedIOException e) {
    String message = Failures.rootMessage(e);
    return message.toLowerCase(Locale.ROOT).contains("in use")
        ? "address already in use"
        : "cannot listen: " + message;
  }
}
