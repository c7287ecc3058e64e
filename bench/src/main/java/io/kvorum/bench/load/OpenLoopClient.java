package io.kvorum.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * A lean open-loop HTTP/1.1 load generator on one Netty event loop (so it leaves the other cores to
 * the server under test). A phase sends requests at a constant rate: request {@code i} is due at
 * {@code start + i / rate}; it goes out on an idle connection at once, or waits in a queue for the
 * first connection to free up. Each latency runs from the due time to the end of the answer, so a
 * stalled server is charged for every request it delayed (no coordinated omission, as wrk2). One
 * request per connection at a time, as wrk2; give enough connections for the rate times the
 * latency. The connections are spread over the targets, and so is the load: request {@code i} goes
 * to target {@code i mod targets} whatever the targets answer, as one wrk2 per target at its share
 * of the rate would send it (a slow target is not spared, it is queued for).
 */
public final class OpenLoopClient implements AutoCloseable {
  private static final long MIN_TICK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final Class<? extends Channel> channelType;
  private final List<InetSocketAddress> targets;

  public OpenLoopClient(List<InetSocketAddress> targets) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("no target to send load to");
    }
    this.targets = List.copyOf(targets);
    boolean epoll = Epoll.isAvailable();
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    this.loop = group.next();
    this.channelType = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /**
   * Sends {@code rate} requests per second for {@code duration} over {@code connections}
   * connections spread over the targets, then waits up to {@code drain} for the last answers;
   * requests still unanswered then count as timeouts.
   */
  public PhaseResult runAtRate(
      String name,
      RequestSource source,
      double rate,
      Duration duration,
      int connections,
      Duration drain) {
    if (rate <= 0) {
      throw new IllegalArgumentException("rate must be positive: " + rate);
    }
    long total = Math.max(1, (long) (rate * duration.toNanos() / 1e9));
    return run(new Phase(name, source, rate, total, duration, drain, false), connections);
  }

  /**
   * Sends {@code count} requests as fast as {@code connections} connections allow (closed loop;
   * latency from the send), e.g. to preload data; gives up after {@code timeout}.
   */
  public PhaseResult runClosed(
      String name, RequestSource source, long count, int connections, Duration timeout) {
    return run(new Phase(name, source, 0, count, timeout, Duration.ZERO, false), connections);
  }

  /**
   * Sends requests as fast as {@code connections} connections allow (closed loop; latency from the
   * send) for {@code duration}, then waits up to {@code drain} for the answers still due: how many
   * requests a second the server completes at saturation.
   */
  public PhaseResult runClosedFor(
      String name, RequestSource source, int connections, Duration duration, Duration drain) {
    return run(new Phase(name, source, 0, Long.MAX_VALUE, duration, drain, true), connections);
  }

  private PhaseResult run(Phase phase, int connections) {
    if (connections < 1) {
      throw new IllegalArgumentException("need at least one connection");
    }
    List<ChannelFuture> connects = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Conn conn = new Conn(phase, i, i % targets.size());
      connects.add(
          new Bootstrap()
              .group(loop)
              .channel(channelType)
              .option(ChannelOption.TCP_NODELAY, true)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
              .handler(
                  new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      conn.channel = ch;
                      ch.pipeline()
                          .addLast(new HttpResponseDecoder(4096, 16384, 1 << 20))
                          .addLast(conn);
                    }
                  })
              .connect(targets.get(i % targets.size())));
    }
    for (ChannelFuture connect : connects) {
      if (!connect.awaitUninterruptibly(10, TimeUnit.SECONDS) || !connect.isSuccess()) {
        connects.forEach(c -> c.channel().close());
        throw new IllegalStateException(
            "cannot connect to " + connect.channel().remoteAddress(), connect.cause());
      }
    }
    loop.execute(phase::start);
    try {
      return phase.done.get(phase.window.plus(phase.drain).toSeconds() + 60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + phase.name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("phase " + phase.name + " did not finish", e);
    } finally {
      connects.forEach(c -> c.channel().close());
    }
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * Request {@code seq}, due at {@code intended} (nanoTime); its bytes are made when it leaves, for
   * the connection it leaves on.
   */
  private record Pending(long seq, long intended) {}

  /** One phase; every field is touched on the event loop only. */
  private final class Phase {
    final String name;
    final RequestSource source;
    final double rate;
    final Duration window;
    final Duration drain;
    final boolean untilWindowEnds;
    final CompletableFuture<PhaseResult> done = new CompletableFuture<>();
    final List<Conn> conns = new ArrayList<>();
    final List<ArrayDeque<Conn>> idle = new ArrayList<>();
    final List<ArrayDeque<Pending>> backlog = new ArrayList<>();
    final List<Conn> toFlush = new ArrayList<>();
    final Histogram latency = new Histogram(3);
    final Map<String, Histogram> byOp = new LinkedHashMap<>();
    final Histogram thisSecond = new Histogram(3);
    final List<PhaseResult.Interval> perSecond = new ArrayList<>();
    final Map<String, Long> errors = new HashMap<>();
    long total;
    long start;
    long sendEnd;
    long seq;
    long inFlight;
    long queued;
    long succeeded;
    long bytes;
    long maxLagNanos;
    int second;
    boolean finished;

    Phase(
        String name,
        RequestSource source,
        double rate,
        long total,
        Duration window,
        Duration drain,
        boolean untilWindowEnds) {
      this.name = name;
      this.source = source;
      this.rate = rate;
      this.total = total;
      this.window = window;
      this.drain = drain;
      this.untilWindowEnds = untilWindowEnds;
      for (int i = 0; i < targets.size(); i++) {
        idle.add(new ArrayDeque<>());
        backlog.add(new ArrayDeque<>());
      }
    }

    boolean closedLoop() {
      return rate == 0;
    }

    void start() {
      start = System.nanoTime();
      for (Conn conn : conns) {
        if (conn.channel.isActive()) {
          idle.get(conn.target).add(conn);
        }
      }
      loop.schedule(this::finish, window.plus(drain).toNanos(), TimeUnit.NANOSECONDS);
      if (closedLoop()) {
        for (Conn conn : conns) {
          if (seq < total && conn.channel.isActive()) {
            idle.get(conn.target).remove(conn);
            send(conn, new Pending(seq++, System.nanoTime()), true);
          }
        }
      } else {
        tick();
      }
    }

    void tick() {
      if (finished) {
        return;
      }
      long now = System.nanoTime();
      long due = Math.min(total, (long) ((now - start) * rate / 1e9) + 1);
      while (seq < due) {
        long intended = start + (long) (seq * 1e9 / rate);
        int target = (int) (seq % targets.size());
        Pending pending = new Pending(seq++, intended);
        Conn conn = idle.get(target).poll();
        if (conn == null) {
          backlog.get(target).add(pending);
          queued++;
        } else {
          maxLagNanos = Math.max(maxLagNanos, now - intended);
          send(conn, pending, false);
        }
      }
      for (Conn conn : toFlush) {
        conn.channel.flush();
      }
      toFlush.clear();
      if (seq < total) {
        long next = start + (long) (seq * 1e9 / rate);
        loop.schedule(
            this::tick, Math.max(MIN_TICK_NANOS, next - System.nanoTime()), TimeUnit.NANOSECONDS);
      } else {
        sendEnd = System.nanoTime();
        finishIfDone();
      }
    }

    void send(Conn conn, Pending pending, boolean flush) {
      conn.inFlight = pending;
      conn.request = source.next(pending.seq(), conn.index);
      inFlight++;
      var buf = Unpooled.wrappedBuffer(conn.request.bytes());
      if (flush) {
        conn.channel.writeAndFlush(buf, conn.channel.voidPromise());
      } else {
        conn.channel.write(buf, conn.channel.voidPromise());
        toFlush.add(conn);
      }
    }

    void answered(Conn conn, int status) {
      Pending pending = conn.inFlight;
      Request request = conn.request;
      conn.inFlight = null;
      inFlight--;
      long now = System.nanoTime();
      long micros = Math.max(1, (now - pending.intended()) / 1000);
      latency.recordValue(micros);
      byOp.computeIfAbsent(request.op(), op -> new Histogram(3)).recordValue(micros);
      int at = (int) ((now - start) / 1_000_000_000L);
      while (second < at) {
        closeSecond();
      }
      thisSecond.recordValue(micros);
      if (source.observesAnswers()) {
        source.answered(
            conn.index, new RequestSource.Answer(status, conn.etag, conn.body.toString()));
      }
      if (status == request.expectedStatus()) {
        succeeded++;
      } else {
        errors.merge("status " + status, 1L, Long::sum);
      }
      if (finished) {
        return;
      }
      Pending next = backlog.get(conn.target).poll();
      if (next != null) {
        queued--;
      } else if (closedLoop()) {
        if (untilWindowEnds && now - start >= window.toNanos()) {
          total = seq;
        }
        if (seq < total) {
          next = new Pending(seq++, now);
        }
      }
      if (next != null) {
        send(conn, next, true);
      } else {
        idle.get(conn.target).add(conn);
        finishIfDone();
      }
    }

    void failed(Conn conn) {
      idle.get(conn.target).remove(conn);
      if (conn.inFlight != null) {
        conn.inFlight = null;
        inFlight--;
        errors.merge("connection", 1L, Long::sum);
      }
      if (!finished && conns.stream().noneMatch(c -> c.channel.isActive())) {
        finish();
      }
    }

    void closeSecond() {
      perSecond.add(
          new PhaseResult.Interval(
              second,
              thisSecond.getTotalCount(),
              thisSecond.getValueAtPercentile(50),
              thisSecond.getValueAtPercentile(99),
              thisSecond.getMaxValue()));
      thisSecond.reset();
      second++;
    }

    void finishIfDone() {
      if (seq == total && inFlight == 0 && queued == 0) {
        finish();
      }
    }

    void finish() {
      if (finished) {
        return;
      }
      finished = true;
      long end = System.nanoTime();
      if (sendEnd == 0) {
        sendEnd = end;
      }
      if (inFlight > 0) {
        errors.merge("timeout", inFlight, Long::sum);
      }
      long unsent = queued + (untilWindowEnds ? 0 : total - seq);
      if (unsent > 0) {
        errors.merge("not sent", unsent, Long::sum);
      }
      if (thisSecond.getTotalCount() > 0) {
        closeSecond();
      }
      Duration sendWindow =
          closedLoop() ? Duration.ofNanos(end - start) : Duration.ofNanos(sendEnd - start);
      done.complete(
          new PhaseResult(
              name,
              rate,
              sendWindow,
              seq,
              succeeded,
              latency.getTotalCount(),
              Map.copyOf(errors),
              latency,
              Map.copyOf(byOp),
              List.copyOf(perSecond),
              bytes,
              maxLagNanos / 1000));
    }
  }

  /** One connection's handler; at most one request on it at a time. */
  private final class Conn extends ChannelInboundHandlerAdapter {
    final Phase phase;
    final int index;
    final int target;
    final StringBuilder body = new StringBuilder();
    Channel channel;
    Pending inFlight;
    Request request;
    int status;
    String etag;

    Conn(Phase phase, int index, int target) {
      this.phase = phase;
      this.index = index;
      this.target = target;
      phase.conns.add(this);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
          ctx.close();
          return;
        }
        boolean observed = phase.source.observesAnswers();
        if (msg instanceof HttpResponse response) {
          status = response.status().code();
          if (observed) {
            etag = response.headers().get(HttpHeaderNames.ETAG);
            body.setLength(0);
          }
        }
        if (msg instanceof HttpContent content) {
          phase.bytes += content.content().readableBytes();
          if (observed) {
            body.append(content.content().toString(StandardCharsets.UTF_8));
          }
        }
        if (msg instanceof LastHttpContent && inFlight != null) {
          phase.answered(this, status);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      phase.failed(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
