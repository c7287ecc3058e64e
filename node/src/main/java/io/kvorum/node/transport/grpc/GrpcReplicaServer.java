package io.kvorum.node.transport.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.transport.PeerHandlers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inter-node gRPC server: this node's {@link PeerHandlers}, served to its peers as the wire
 * mappings say ({@link ServedProtocols}), every message through the node's {@link WireEdge}.
 */
public final class GrpcReplicaServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcReplicaServer.class);
  private final Server server;
  private final ServedProtocols served;

  private GrpcReplicaServer(Server server, ServedProtocols served) {
    this.server = server;
    this.served = served;
  }

  /**
   * Binds {@code port} on every interface and starts serving on {@code loops}: it accepts on one of
   * them and spreads connections over all; each connection's calls run on its loop (the caller
   * keeps the loops running until this server is closed). With mutual TLS when {@code tls} is
   * present: a peer must present a certificate the CA signed, and connections refused at the
   * handshake are logged once per address and cause.
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static GrpcReplicaServer start(
      NodeId self,
      int port,
      PeerHandlers handlers,
      Clock clock,
      int maxMessageBytes,
      EventLoops loops,
      Optional<GrpcTls> tls,
      PeerProtocol protocol) {
    return start(
        self, new InetSocketAddress(port), handlers, clock, maxMessageBytes, loops, tls, protocol);
  }

  /**
   * As {@link #start(NodeId, int, PeerHandlers, Clock, int, EventLoops, Optional, PeerProtocol)},
   * bound to {@code listen} ({@code --grpc-host}).
   */
  public static GrpcReplicaServer start(
      NodeId self,
      InetSocketAddress listen,
      PeerHandlers handlers,
      Clock clock,
      int maxMessageBytes,
      EventLoops loops,
      Optional<GrpcTls> tls,
      PeerProtocol protocol) {
    int port = listen.getPort();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(listen);
    ServedProtocols served =
        new ServedProtocols(WireProtocols.standard(self, protocol), handlers, loops);
    tls.ifPresent(t -> builder.protocolNegotiator(new HandshakeRefusals(t.server())));
    Server server =
        builder
            .bossEventLoopGroup(loops.group())
            .workerEventLoopGroup(loops.group())
            .channelType(loops.serverChannelType())
            .addService(
                ServerInterceptors.intercept(served.service(), new WireEdge(clock).server()))
            .directExecutor()
            .permitKeepAliveTime(2, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            // A batch of requests holds up to a batch's worth of small ones, or one of the largest.
            .maxInboundMessageSize(maxMessageBytes + ProtoMapping.BATCH_BYTES)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on port " + port + ": " + e.getMessage(), e);
    }
    log.info(
        "inter-node gRPC listening on {}:{}{}",
        listen.getAddress().isAnyLocalAddress() ? "every interface" : listen.getHostString(),
        server.getPort(),
        tls.isPresent() ? " (mutual TLS)" : "");
    return new GrpcReplicaServer(server, served);
  }

  /**
   * Stops serving: new calls are refused, the peers' Exchange streams end once what they sent is
   * answered, and other calls in flight get up to two seconds to finish.
   */
  @Override
  public void close() {
    server.shutdown();
    served.endExchanges();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }
}
