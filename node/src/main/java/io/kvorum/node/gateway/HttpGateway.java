package io.kvorum.node.gateway;

import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.coordinator.SnapshotAdmin;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.tls.TlsMaterial;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of the client API, on event loops it is given (which may serve other sockets too:
 * the inter-node gRPC traffic): it accepts on one of them and serves each connection on one.
 * Lifecycle: {@link #start()}, then {@link #drain(Duration)} to stop taking requests and let
 * in-flight ones finish, then {@link #close()}, which closes the connections but leaves the loops
 * to their owner.
 */
public final class HttpGateway implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpGateway.class);

  private final GatewaySettings settings;
  private final HttpMetrics metrics;
  private final Endpoints endpoints;
  private final EventLoops loops;
  private final SslContext tls;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ChangeFeeds feeds;
  private volatile boolean draining;
  private Channel serverChannel;

  /**
   * What the gateway serves requests with.
   *
   * @param data the data operations
   * @param changes the change feeds, served on {@code /v0/changes}
   * @param admin what operators ask of the cluster
   * @param status what the health endpoints report
   * @param registry the node's metrics, served on {@code /metrics}; the gateway's own join them
   * @param snapshots this node's snapshots, served on {@code /v0/snapshots}
   */
  public record Services(
      Coordinator data,
      ChangeFeeds changes,
      ClusterAdmin admin,
      NodeStatus status,
      PrometheusMeterRegistry registry,
      SnapshotAdmin snapshots) {}

  /**
   * A gateway that serves HTTPS with {@code tls}'s certificate when present (renewed certificates
   * are presented from the next handshake on), plain HTTP otherwise, and that lets a {@code /v0/}
   * request through only with a bearer token whose role covers it ({@link AccessControl}) when
   * {@code tokens} is given.
   *
   * @param tokens the tokens in force, asked for on every request (they may be reloaded); null for
   *     none: every request goes through
   */
  public HttpGateway(
      GatewaySettings settings,
      Optional<TlsMaterial> tls,
      Supplier<AccessTokens> tokens,
      EventLoops loops,
      Services services) {
    this.settings = settings;
    this.tls = tls.map(HttpGateway::serverContext).orElse(null);
    this.loops = loops;
    this.metrics = new HttpMetrics(services.registry());
    this.feeds = services.changes();
    this.endpoints =
        new Endpoints(
            new DataEndpoints(
                services.data(),
                services.changes(),
                new RequestParameters(settings.maxKeyBytes()),
                services.status(),
                () -> draining,
                metrics,
                settings.inlineReplies()),
            new AdminEndpoints(
                services.admin(),
                services.status(),
                services.registry(),
                () -> draining,
                services.data()::defaultFrom),
            new SnapshotEndpoints(services.snapshots()),
            tokens == null ? null : new AccessControl(tokens));
  }

  /**
   * Binds the port and starts serving.
   *
   * @return the bound address (its port is the real one when 0 was configured)
   * @throws java.io.UncheckedIOException wrapping the bind failure, e.g. the port is in use
   */
  public InetSocketAddress start() {
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loops.group())
            .channel(loops.serverChannelType())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 << 10, 2 << 20))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    connections.add(ch);
                    if (tls != null) {
                      ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline()
                        .addLast(
                            new IdleStateHandler(
                                0, 0, settings.idleTimeout().toSeconds(), TimeUnit.SECONDS));
                    addHttpHandlers(
                        ch.pipeline(),
                        settings.maxValueBytes(),
                        endpoints,
                        metrics,
                        () -> draining);
                  }
                });
    try {
      serverChannel =
          bootstrap.bind(settings.host(), settings.port()).syncUninterruptibly().channel();
    } catch (Exception e) {
      close();
      throw new java.io.UncheckedIOException(
          "cannot listen on " + settings.host() + ":" + settings.port() + ": " + e.getMessage(),
          e instanceof java.io.IOException io ? io : new java.io.IOException(e));
    }
    InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();
    log.info("HTTP API listening on {}{} on {}", address, tls != null ? " (TLS)" : "", loops);
    return address;
  }

  private static SslContext serverContext(TlsMaterial material) {
    try {
      return SslContextBuilder.forServer(material.keyManager())
          .sslProvider(material.engine().provider())
          .build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS for HTTP: " + e.getMessage(), e);
    }
  }

  /**
   * Stops accepting connections and new requests, ends the change feeds (which never finish by
   * themselves: each says why in its last line), then waits up to {@code grace} for requests in
   * flight to finish.
   *
   * @return whether every request finished in time
   */
  public boolean drain(Duration grace) {
    draining = true;
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
    feeds.close();
    long deadline = System.nanoTime() + grace.toNanos();
    while (metrics.inFlight() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return metrics.inFlight() == 0;
  }

  /** Requests received and not yet fully answered. */
  public int inFlight() {
    return metrics.inFlight();
  }

  @Override
  public void close() {
    draining = true;
    if (serverChannel != null) {
      serverChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
  }

  /**
   * The handlers of one HTTP connection, after its TLS and idle handlers: the codec, the body limit
   * and the request handler (also the test fixtures' connection, {@code EdgeFixture}).
   */
  static void addHttpHandlers(
      ChannelPipeline pipeline,
      int maxValueBytes,
      Endpoints endpoints,
      HttpMetrics metrics,
      BooleanSupplier draining) {
    HttpRequestHandler requests = new HttpRequestHandler(endpoints, metrics, draining);
    pipeline
        .addLast(
            new HttpServerCodec(
                new HttpDecoderConfig()
                    .setMaxInitialLineLength(16 << 10)
                    .setMaxHeaderSize(16 << 10)
                    .setMaxChunkSize(64 << 10)))
        .addLast(new BodyLimitAggregator(maxValueBytes, requests::busy))
        .addLast(requests);
  }
}
