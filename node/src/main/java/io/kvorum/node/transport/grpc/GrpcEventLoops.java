package io.kvorum.node.transport.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoop;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.netty.shaded.io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The event loops of all inter-node gRPC traffic in this process, the server side and the client
 * side alike: one group of {@code --io-threads} threads (epoll where available) instead of gRPC's
 * defaults of a boss thread, twice the cores of server workers and twice the cores of client
 * threads. Every replica message is handled on these threads (the service and the calls run on
 * {@code directExecutor()}), so fewer of them means fewer thread wake-ups per request; measured in
 * {@code docs/performance.md}.
 *
 * <p>The replica streams run their batching on these loops: a peer's channel is bound to one loop
 * ({@link #next}), and a served stream works on the loop of its connection ({@link #current}), so
 * each stream's state is confined to one thread and handing a batch to gRPC costs no extra thread
 * hop.
 *
 * <p>Shared by every node of the process (tests run several) and reference-counted: the group
 * starts with its first user and stops when the last one releases it. The first user's thread count
 * wins.
 */
final class GrpcEventLoops {
  private static GrpcEventLoops shared;
  private static int users;

  private final EventLoopGroup group;
  private final boolean epoll;

  private GrpcEventLoops(int threads) {
    this.epoll = Epoll.isAvailable();
    this.group =
        new MultiThreadIoEventLoopGroup(
            threads,
            new DefaultThreadFactory("kvorum-grpc", true),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
  }

  static synchronized GrpcEventLoops acquire(int threads) {
    if (shared == null) {
      shared = new GrpcEventLoops(threads);
    }
    users++;
    return shared;
  }

  /** Gives up one use; the last one shuts the threads down. */
  void release() {
    synchronized (GrpcEventLoops.class) {
      if (--users > 0) {
        return;
      }
      shared = null;
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
  }

  NettyServerBuilder configure(NettyServerBuilder builder) {
    Class<? extends ServerChannel> type =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    return builder.bossEventLoopGroup(group).workerEventLoopGroup(group).channelType(type);
  }

  /** A loop of the group, in turn, for a peer's channel to live on. */
  EventLoop next() {
    return group.next();
  }

  /** The loop of the group running the calling thread; else one of them ({@link #next}). */
  EventLoop current() {
    for (EventExecutor executor : group) {
      if (executor.inEventLoop()) {
        return (EventLoop) executor;
      }
    }
    return next();
  }

  /** Binds every connection of a channel to {@code loop}, one of this group's. */
  NettyChannelBuilder configure(NettyChannelBuilder builder, EventLoop loop) {
    Class<? extends Channel> type = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    return builder.eventLoopGroup(loop).channelType(type);
  }
}
