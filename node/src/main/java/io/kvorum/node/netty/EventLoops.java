package io.kvorum.node.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A group of Netty event loops, native epoll where available and NIO elsewhere, with the channel
 * types that go with it. The group owns its threads, named {@code <name>-1} … {@code <name>-N}:
 * {@link #close()} stops them, after the servers and channels using them are closed.
 *
 * <p>Work on these threads must never block. Code that runs on one of them may ask which one
 * ({@link #current()}) to keep its follow-up work there instead of handing it to another thread.
 */
public final class EventLoops implements AutoCloseable {
  private final String name;
  private final boolean epoll;
  private final EventLoopGroup group;
  private final List<EventLoop> loops;

  private EventLoops(String name, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("an event-loop group needs a thread, got " + threads);
    }
    this.name = name;
    this.epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    this.group = new MultiThreadIoEventLoopGroup(threads, threadsNamed(name), io);
    List<EventLoop> all = new ArrayList<>();
    for (EventExecutor executor : group) {
      all.add((EventLoop) executor);
    }
    this.loops = List.copyOf(all);
  }

  /**
   * Turns Netty's buffer leak detector off unless {@code -Dio.netty.leakDetection.level} asks for
   * it: it samples buffers and records a stack trace for each sample, about 10 µs of CPU per
   * replicated write at 1,000 writes/s (docs/decisions/netty-leak-detector-off-in-a-node.md). For a
   * node's process; tests keep Netty's default.
   */
  public static void detectLeaksOnlyIfAsked() {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
  }

  /** Starts {@code threads} event loops named {@code name-1} … */
  public static EventLoops start(String name, int threads) {
    return new EventLoops(name, threads);
  }

  /** The whole group, for servers (which accept on one loop and spread connections over all). */
  public EventLoopGroup group() {
    return group;
  }

  /** The loops of the group, in a fixed order. */
  public List<EventLoop> loops() {
    return loops;
  }

  /** The next loop in turn, for a channel that must live on one. */
  public EventLoop next() {
    return (EventLoop) group.next();
  }

  /** The loop running the calling thread, if it is one of this group's. */
  public Optional<EventLoop> current() {
    for (EventLoop loop : loops) {
      if (loop.inEventLoop()) {
        return Optional.of(loop);
      }
    }
    return Optional.empty();
  }

  /** Whether the loops use native epoll (else NIO). */
  public boolean epoll() {
    return epoll;
  }

  /** The listening channel type matching the loops. */
  public Class<? extends ServerSocketChannel> serverChannelType() {
    return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** The connecting channel type matching the loops. */
  public Class<? extends SocketChannel> socketChannelType() {
    return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /** Stops the threads, letting tasks already queued run; waits up to a few seconds. */
  @Override
  public void close() {
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  @Override
  public String toString() {
    return name + " (" + loops.size() + (epoll ? " epoll" : " NIO") + " event loops)";
  }

  private static ThreadFactory threadsNamed(String name) {
    AtomicInteger n = new AtomicInteger();
    return task -> {
      // Netty's own thread class: its fast thread-locals (buffer caches) need no hash lookup.
      Thread thread = new FastThreadLocalThread(task, name + "-" + n.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
