package io.kvorum.node.gateway;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.antientropy.HashTrees;
import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.RendezvousPlacement;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.Replicas;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The HTTP edge of a one-node cluster on in-memory storage, without a socket: each {@link
 * #channel()} is a connection whose pipeline is the gateway's (codec, body limit, request handler),
 * on an {@link EmbeddedChannel} driven by the calling thread. Storage answers at once, so a request
 * is answered before writing it returns.
 */
final class EdgeFixture implements AutoCloseable {
  static final int MAX_VALUE_BYTES = 4096;
  static final int MAX_KEY_BYTES = 256;

  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final HttpMetrics metrics;
  private final Endpoints endpoints;

  /**
   * @param tokens the tokens every /v0/ request needs, or null for none
   */
  EdgeFixture(AccessTokens tokens) {
    NodeId self = NodeId.of("n1");
    Topology topology = Topology.single(self, "localhost", 9090);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HybridLogicalClock clock = HybridLogicalClock.start(new MemoryCeilingStore());
    InMemoryStorageEngine storage = new InMemoryStorageEngine();
    ScriptedPeerTransport peers = new ScriptedPeerTransport();
    RendezvousPlacement placement = new RendezvousPlacement(topology.ids());
    Membership membership = Membership.fixed(topology);
    Replicas replicas = new Replicas(self, storage, peers);
    HintedHandoff handoff =
        new HintedHandoff(
            new InMemoryHintStore(),
            peers,
            System::currentTimeMillis,
            new HintedHandoff.Settings(Duration.ofHours(3), 1_000),
            List.of(),
            registry);
    ClockOffsets offsets =
        new ClockOffsets(
            List.of(),
            peers.peerClocks(),
            clock,
            System::nanoTime,
            Duration.ofMillis(500),
            registry);
    Coordinator coordinator =
        new Coordinator(
            membership,
            replicas,
            handoff,
            clock,
            offsets,
            Duration.ofSeconds(1),
            () -> timers,
            registry,
            1);
    ClusterAdmin admin =
        new ClusterAdmin(
            membership,
            replicas,
            handoff,
            offsets,
            new AntiEntropy(
                new HashTrees(self, topology.ids(), placement),
                storage,
                peers,
                new AntiEntropy.Settings(8 << 20, Duration.ofHours(1), Duration.ofHours(1)),
                timers,
                System::currentTimeMillis,
                registry),
            new MembershipService(
                membership,
                new MembershipStore(temporaryDirectory()),
                storage,
                peers,
                new MembershipService.Settings(
                    8 << 20, Duration.ofSeconds(1), Duration.ofSeconds(1)),
                timers,
                System::currentTimeMillis));
    metrics = new HttpMetrics(registry);
    NodeStatus status = new NodeStatus("n1", () -> true);
    endpoints =
        new Endpoints(
            new DataEndpoints(
                coordinator,
                new RequestParameters(MAX_KEY_BYTES),
                status,
                () -> false,
                metrics,
                true),
            new AdminEndpoints(admin, status, registry, () -> false),
            tokens == null ? null : new AccessControl(() -> tokens));
  }

  /** A new connection, with the gateway's handlers and limits. */
  EmbeddedChannel channel() {
    return new EmbeddedChannel(
        new HttpServerCodec(
            new HttpDecoderConfig()
                .setMaxInitialLineLength(16 << 10)
                .setMaxHeaderSize(16 << 10)
                .setMaxChunkSize(64 << 10)),
        new BodyLimitAggregator(MAX_VALUE_BYTES),
        new HttpRequestHandler(endpoints, metrics, () -> false));
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }

  private static Path temporaryDirectory() {
    try {
      Path dir = Files.createTempDirectory("kvorum-membership");
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
