package io.kvorum.node.config;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Topology;
import picocli.CommandLine.Mixin;

/**
 * The node's flags. Each has an environment twin ({@code --http-port} ⇔ {@code KVORUM_HTTP_PORT});
 * a flag given on the command line wins over its variable. Values stay text here so that {@link
 * #toConfig()} can say exactly which flag is wrong and why.
 *
 * <p>One mixin per section of docs/configuration.md, in its order, so that {@code --help} lists the
 * flags as the document does.
 */
public final class NodeOptions {
  @Mixin private NetworkOptions network = new NetworkOptions();
  @Mixin private RequestOptions requests = new RequestOptions();
  @Mixin private StorageOptions storage = new StorageOptions();
  @Mixin private ReplicationOptions replication = new ReplicationOptions();
  @Mixin private ClockOptions clock = new ClockOptions();
  @Mixin private RepairOptions repair = new RepairOptions();
  @Mixin private AuthOptions auth = new AuthOptions();
  @Mixin private LifecycleOptions lifecycle = new LifecycleOptions();
  @Mixin private LoggingOptions logging = new LoggingOptions();
  @Mixin private TlsOptions tls = new TlsOptions();

  /**
   * The format of the node's log lines.
   *
   * @throws ConfigException if {@code --log-format} is neither text nor json
   */
  public LogFormat logFormat() {
    return logging.logFormat();
  }

  /**
   * Validates every flag and builds the configuration.
   *
   * @throws ConfigException naming the first invalid flag and value
   */
  public NodeConfig toConfig() {
    // Checked in a fixed order: with several bad flags, the one named is always the same.
    NodeId id = network.nodeId();
    int cores = Runtime.getRuntime().availableProcessors();
    int grpc = network.grpcPort();
    Topology topology = network.topology(id, grpc);
    int storageThreads = storage.threads(cores);
    NodeConfig.Storage storageConfig = storage.storage(storageThreads);
    storage.checkPaxosPurgeGrace(
        storageConfig.paxosPurgeGrace(),
        requests.requestTimeout().plus(clock.maxClockOffset().multipliedBy(2)));
    return new NodeConfig(
        id,
        topology,
        network.http(cores),
        grpc,
        network.grpcHost(),
        storage.dataDir(id),
        requests.requestTimeout(),
        requests.limits(),
        storageConfig,
        replication.replication(),
        lifecycle.shutdownGrace(),
        clock.maxClockOffset(),
        repair.repair(),
        tls.tls(),
        auth.authTokens(),
        network.membership());
  }
}
