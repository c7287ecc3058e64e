package io.kvorum.node.transport.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.ReplicaService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inter-node gRPC server: this node's {@link ReplicaService}, served to its peers, every
 * message through the node's {@link WireEdge}.
 */
public final class GrpcReplicaServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcReplicaServer.class);
  private final Server server;
  private final GrpcEventLoops eventLoops;

  private GrpcReplicaServer(Server server, GrpcEventLoops eventLoops) {
    this.server = server;
    this.eventLoops = eventLoops;
  }

  /**
   * Binds {@code port} on every interface and starts serving, on the process's inter-node event
   * loops ({@link GrpcEventLoops}, {@code ioThreads} threads when it starts them).
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static GrpcReplicaServer start(
      NodeId self,
      int port,
      ReplicaService service,
      Clock clock,
      int maxMessageBytes,
      int ioThreads) {
    GrpcEventLoops eventLoops = GrpcEventLoops.acquire(ioThreads);
    Server server =
        eventLoops
            .configure(NettyServerBuilder.forAddress(new InetSocketAddress(port)))
            .addService(
                ServerInterceptors.intercept(
                    new ReplicaEndpoint(self, service, eventLoops), new WireEdge(clock).server()))
            .directExecutor()
            .permitKeepAliveTime(2, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            // A batch of requests holds up to a batch's worth of small ones, or one of the largest.
            .maxInboundMessageSize(maxMessageBytes + ProtoMapping.BATCH_BYTES)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      eventLoops.release();
      throw new UncheckedIOException("cannot listen on port " + port + ": " + e.getMessage(), e);
    }
    log.info("inter-node gRPC listening on port {}", server.getPort());
    return new GrpcReplicaServer(server, eventLoops);
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    } finally {
      eventLoops.release();
    }
  }
}
