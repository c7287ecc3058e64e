// What one inter-process message costs at a moderate rate, layer by layer, without kvorum: a
// client process sends a 1 KiB message at a fixed rate to a server process over loopback TCP, the
// server answers each with 16 bytes, and the two processes' CPU (utime + stime from /proc) is
// divided by the round trips. The layers are those of kvorum's replica stream, each alone:
//
//   raw   Netty epoll channels, one event loop per process, a handler answering each request;
//   grpc  one long-lived gRPC bidirectional stream on the same loops (direct executor, plaintext,
//         the keep-alive kvorum's channels use), a message each way per round trip;
//   timer no message: the client's timer alone (the server process idles), to take from the
//         client's figure what the pacing costs.
//
// The client paces from its own event loop (a timer per message, as a request arriving from
// outside wakes a coordinator): per round trip the server wakes once, for the message, and the
// client twice, for its timer and for the answer, as a replica and a coordinator do for one replica
// write at a moderate rate. docs/performance.md ("What a hop costs without kvorum") uses it; run
// from the repository root after building the node's jar (arguments: the layer, round trips a
// second, seconds of warm-up, seconds measured):
//
//   J=node/target/kvorum-node.jar; JAVA=$(bin/find-java)/bin/java
//   $JAVA -Xmx256m -cp $J bench/tools/hop/Hop.java run grpc 1000 20 40
//
// `run` starts the server as a second process (the same JVM options) and prints one line:
// layer, rate, round trips measured, server and client CPU µs per round trip, their context
// switches per round trip, and the p50/p99 round trip in µs.

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public class Hop {
  static final int REQUEST = 1024;
  static final int ANSWER = 16;

  static final MethodDescriptor<byte[], byte[]> EXCHANGE =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("hop.Hop/Exchange")
          .setRequestMarshaller(new Bytes())
          .setResponseMarshaller(new Bytes())
          .build();

  public static void main(String[] args) throws Exception {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED); // as a node does
    switch (args.length == 0 ? "" : args[0]) {
      case "server" -> serve(args[1], Integer.parseInt(args[2]));
      case "run" ->
          run(
              args[1],
              Integer.parseInt(args[2]),
              Integer.parseInt(args[3]),
              Integer.parseInt(args[4]));
      default -> {
        System.err.println(
            "usage: Hop.java run LAYER RATE WARM SECS (LAYER: raw, grpc or timer; RATE: round"
                + " trips a second; WARM, SECS: seconds of warm-up and measured), or server LAYER"
                + " PORT; run from the repository root");
        System.exit(args.length == 1 && args[0].equals("--help") ? 0 : 2);
      }
    }
  }

  static EventLoopGroup loop(String name) {
    return new MultiThreadIoEventLoopGroup(
        1,
        (java.util.concurrent.ThreadFactory) r -> new Thread(r, name),
        EpollIoHandler.newFactory());
  }

  // ---- the server process ----

  static void serve(String layer, int port) throws Exception {
    EventLoopGroup loop = loop("server-loop");
    if (layer.equals("raw")) {
      new ServerBootstrap()
          .group(loop)
          .channel(EpollServerSocketChannel.class)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(
              new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                  ch.pipeline().addLast(new Answerer());
                }
              })
          .bind("127.0.0.1", port)
          .sync();
    } else {
      ServerServiceDefinition service =
          ServerServiceDefinition.builder("hop.Hop")
              .addMethod(
                  EXCHANGE,
                  ServerCalls.asyncBidiStreamingCall(
                      out ->
                          new StreamObserver<byte[]>() {
                            @Override
                            public void onNext(byte[] request) {
                              out.onNext(new byte[ANSWER]);
                            }

                            @Override
                            public void onError(Throwable t) {}

                            @Override
                            public void onCompleted() {
                              out.onCompleted();
                            }
                          }))
              .build();
      NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
          .bossEventLoopGroup(loop)
          .workerEventLoopGroup(loop)
          .channelType(EpollServerSocketChannel.class)
          .directExecutor()
          .permitKeepAliveTime(2, TimeUnit.SECONDS)
          .permitKeepAliveWithoutCalls(true)
          .addService(service)
          .build()
          .start();
    }
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** Counts the bytes read into whole messages of a fixed size. */
  abstract static class Messages extends ChannelInboundHandlerAdapter {
    private final int size;
    private int pending;

    Messages(int size) {
      this.size = size;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      pending += in.readableBytes();
      in.release();
      int whole = pending / size;
      pending -= whole * size;
      if (whole > 0) {
        received(ctx, whole);
      }
    }

    abstract void received(ChannelHandlerContext ctx, int messages);
  }

  /** Answers every whole 1 KiB request with 16 bytes. */
  static final class Answerer extends Messages {
    Answerer() {
      super(REQUEST);
    }

    @Override
    void received(ChannelHandlerContext ctx, int messages) {
      for (int i = 0; i < messages; i++) {
        ctx.write(ctx.alloc().buffer(ANSWER).writeZero(ANSWER));
      }
      ctx.flush();
    }
  }

  // ---- the client process, which starts the server ----

  static void run(String layer, int rate, int warm, int secs) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(List.of("bench/tools/hop/Hop.java", "server", layer, "" + port));
    Process server =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      String line = new String(server.getInputStream().readNBytes(6));
      if (!line.startsWith("ready")) {
        throw new IllegalStateException("the server did not start: " + line);
      }
      EventLoopGroup loop = loop("client-loop");
      Pacer pacer =
          switch (layer) {
            case "raw" -> new RawPacer(loop, port);
            case "grpc" -> new GrpcPacer(loop, port);
            default -> new TimerOnly(loop);
          };
      long periodNanos = 1_000_000_000L / rate;
      pacer.loop.scheduleAtFixedRate(pacer::send, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
      Thread.sleep(warm * 1000L);
      long[] s0 = usage(server.pid());
      long[] c0 = usage(ProcessHandle.current().pid());
      pacer.startMeasuring();
      Thread.sleep(secs * 1000L);
      long[] s1 = usage(server.pid());
      long[] c1 = usage(ProcessHandle.current().pid());
      long[] rtt = pacer.stopMeasuring();
      long n = rtt.length;
      Arrays.sort(rtt);
      System.out.printf(
          "%s rate=%d round_trips=%d server_cpu_us=%.1f client_cpu_us=%.1f"
              + " server_switches=%.2f client_switches=%.2f p50_us=%d p99_us=%d%n",
          layer,
          rate,
          n,
          (s1[0] - s0[0]) / 1000.0 / n,
          (c1[0] - c0[0]) / 1000.0 / n,
          (double) (s1[1] - s0[1]) / n,
          (double) (c1[1] - c0[1]) / n,
          rtt[(int) (n / 2)] / 1000,
          rtt[(int) (n * 99 / 100)] / 1000);
    } finally {
      server.destroyForcibly().waitFor();
    }
    System.exit(0); // the event loop's thread is not a daemon
  }

  /**
   * A process's CPU time (ns; its stat counts every thread, ended ones too) and its threads'
   * context switches, from /proc.
   */
  static long[] usage(long pid) throws Exception {
    long switches = 0;
    try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks.toList()) {
        try {
          for (String l : Files.readAllLines(task.resolve("status"))) {
            if (l.startsWith("voluntary_ctxt_switches")
                || l.startsWith("nonvoluntary_ctxt_switches")) {
              switches += Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
            }
          }
        } catch (java.nio.file.NoSuchFileException gone) {
          // a thread ended between the listing and the read
        }
      }
    }
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return new long[] {ticks * 10_000_000L, switches};
  }

  /** Sends one request per tick on its loop and times each answer; owned by the loop. */
  abstract static class Pacer {
    final EventLoopGroup loop;
    private final long[] sentAt = new long[1 << 16];
    private long sent;
    private long answered;
    private boolean measuring;
    private long[] times = new long[1 << 20];
    private int count;

    Pacer(EventLoopGroup loop) {
      this.loop = loop;
    }

    abstract void write();

    void send() {
      sentAt[(int) (sent++ & 0xffff)] = System.nanoTime();
      write();
    }

    void answer() {
      long took = System.nanoTime() - sentAt[(int) (answered++ & 0xffff)];
      if (measuring && count < times.length) {
        times[count++] = took;
      }
    }

    void startMeasuring() throws Exception {
      loop.submit(() -> measuring = true).get();
    }

    long[] stopMeasuring() throws Exception {
      return loop.submit(
              () -> {
                measuring = false;
                return Arrays.copyOf(times, count);
              })
          .get();
    }
  }

  /** No message at all: what the client's own timer costs, to take from its figure. */
  static final class TimerOnly extends Pacer {
    TimerOnly(EventLoopGroup loop) {
      super(loop);
    }

    @Override
    void write() {
      answer();
    }
  }

  static final class RawPacer extends Pacer {
    private final Channel channel;
    private final ByteBuf request =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer(REQUEST).writeZero(REQUEST));

    RawPacer(EventLoopGroup loop, int port) throws Exception {
      super(loop);
      channel =
          new Bootstrap()
              .group(loop)
              .channel(EpollSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(
                  new Messages(ANSWER) {
                    @Override
                    void received(ChannelHandlerContext ctx, int messages) {
                      for (int i = 0; i < messages; i++) {
                        answer();
                      }
                    }
                  })
              .connect("127.0.0.1", port)
              .sync()
              .channel();
    }

    @Override
    void write() {
      channel.writeAndFlush(request.duplicate());
    }
  }

  static final class GrpcPacer extends Pacer {
    private final StreamObserver<byte[]> out;

    GrpcPacer(EventLoopGroup loop, int port) throws Exception {
      super(loop);
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", port)
              .eventLoopGroup(loop)
              .channelType(EpollSocketChannel.class)
              .usePlaintext()
              .directExecutor()
              .keepAliveTime(10, TimeUnit.SECONDS)
              .keepAliveTimeout(3, TimeUnit.SECONDS)
              .keepAliveWithoutCalls(true)
              .build();
      CountDownLatch first = new CountDownLatch(1);
      out =
          ClientCalls.asyncBidiStreamingCall(
              channel.newCall(EXCHANGE, CallOptions.DEFAULT),
              new StreamObserver<byte[]>() {
                @Override
                public void onNext(byte[] answer) {
                  answer();
                  first.countDown();
                }

                @Override
                public void onError(Throwable t) {
                  t.printStackTrace();
                }

                @Override
                public void onCompleted() {}
              });
      loop.submit(this::send).get();
      if (!first.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("no answer from the gRPC server");
      }
    }

    @Override
    void write() {
      out.onNext(new byte[REQUEST]);
    }
  }

  /** Byte arrays as they are, for a method without protobuf. */
  static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
