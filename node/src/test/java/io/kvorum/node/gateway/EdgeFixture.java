package io.kvorum.node.gateway;

import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.coordinator.SnapshotAdmin;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.Snapshots;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Topology;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;

/**
 * The HTTP edge of a one-node cluster on in-memory storage, without a socket: each {@link
 * #channel()} is a connection whose pipeline is the gateway's (codec, body limit, request handler),
 * on an {@link EmbeddedChannel} driven by the calling thread. Storage answers at once, so a request
 * is answered before writing it returns.
 */
final class EdgeFixture implements AutoCloseable {
  static final int MAX_VALUE_BYTES = 4096;
  static final int MAX_KEY_BYTES = 256;

  private final NodeParts node;
  private final HttpMetrics metrics;
  private final Endpoints endpoints;

  /**
   * @param tokens the tokens every /v0/ request needs, or null for none
   */
  EdgeFixture(AccessTokens tokens) {
    NodeId self = NodeId.of("n1");
    node =
        NodeParts.build(
            TestConfig.in(Path.of("unused"))
                .topology(Topology.single(self, "localhost", 9090))
                .replicationFactor(1)
                .build(),
            new LocalStorage(
                new InMemoryStorageEngine(), new InMemoryHintStore(), new InMemoryAcceptorStore()),
            HybridLogicalClock.start(new MemoryCeilingStore()),
            new ScriptedPeerTransport());
    PrometheusMeterRegistry registry = node.resources().registry();
    metrics = new HttpMetrics(registry);
    NodeStatus status = new NodeStatus("n1", () -> true);
    endpoints =
        new Endpoints(
            new DataEndpoints(
                node.coordinator(),
                node.changeFeeds(),
                new RequestParameters(MAX_KEY_BYTES),
                status,
                () -> false,
                metrics,
                true),
            new AdminEndpoints(
                node.admin(), status, registry, () -> false, node.coordinator()::defaultFrom),
            new SnapshotEndpoints(new SnapshotAdmin(Snapshots.NONE)),
            tokens == null ? null : new AccessControl(() -> tokens));
  }

  /** A new connection, with the gateway's handlers and limits. */
  EmbeddedChannel channel() {
    EmbeddedChannel channel = new EmbeddedChannel();
    HttpGateway.addHttpHandlers(
        channel.pipeline(), MAX_VALUE_BYTES, endpoints, metrics, () -> false);
    return channel;
  }

  @Override
  public void close() {
    node.close();
  }
}
