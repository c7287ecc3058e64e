package io.kvorum.node.server;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.tls.TlsMaterial;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.grpc.GrpcPeerTransport;
import io.kvorum.node.transport.grpc.GrpcReplicaServer;
import io.kvorum.node.transport.grpc.GrpcTls;
import io.kvorum.node.transport.grpc.PeerProtocol;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * How nodes reach each other; tests substitute an in-memory network. Both sides may run on the
 * event loops the node gives its inter-node traffic, which outlive them.
 */
public interface Interconnect {
  /**
   * The client side: replica calls to every peer of the topology, secured by {@code tls} when
   * present, its refusals of peers counted in {@code registry}. Interconnects that are no network
   * (the in-memory one of tests) ignore both.
   */
  PeerTransport connect(
      NodeConfig config,
      Clock clock,
      EventLoops loops,
      Threading threading,
      Optional<TlsMaterial> tls,
      MeterRegistry registry);

  /**
   * The server side: serves {@code handlers} to the peers until closed, secured by {@code tls} when
   * present, its refusals of peers counted in {@code registry} (both ignored as above).
   *
   * @throws UncheckedIOException if the inter-node port cannot be bound
   */
  AutoCloseable serve(
      NodeConfig config,
      Clock clock,
      PeerHandlers handlers,
      EventLoops loops,
      Optional<TlsMaterial> tls,
      MeterRegistry registry);

  /** Production: gRPC on {@code --grpc-port}, mutual TLS if configured. */
  Interconnect GRPC =
      new Interconnect() {
        @Override
        public PeerTransport connect(
            NodeConfig config,
            Clock clock,
            EventLoops loops,
            Threading threading,
            Optional<TlsMaterial> tls,
            MeterRegistry registry) {
          return new GrpcPeerTransport(
              config.topology(),
              clock,
              config.requestTimeout(),
              config.replication().catchUpTimeout(),
              maxMessageBytes(config),
              loops,
              threading.sharedLoops() && threading.channelPerLoop(),
              tls.map(GrpcTls::of),
              PeerProtocol.current(registry),
              config.grpcHost());
        }

        @Override
        public AutoCloseable serve(
            NodeConfig config,
            Clock clock,
            PeerHandlers handlers,
            EventLoops loops,
            Optional<TlsMaterial> tls,
            MeterRegistry registry) {
          return GrpcReplicaServer.start(
              config.nodeId(),
              config
                  .grpcHost()
                  .map(host -> new InetSocketAddress(host, config.grpcPort()))
                  .orElseGet(() -> new InetSocketAddress(config.grpcPort())),
              handlers,
              clock,
              maxMessageBytes(config),
              loops,
              tls.map(GrpcTls::of),
              PeerProtocol.current(registry));
        }

        /** The largest value, the largest key, and room for the framing around them. */
        private static int maxMessageBytes(NodeConfig config) {
          return config.limits().maxValueBytes() + config.limits().maxKeyBytes() + (64 << 10);
        }
      };
}
