package io.kvorum.node.transport.grpc;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The connection to one peer: a gRPC channel and, over it, one long-lived bidirectional stream that
 * every replica request shares, matched to its response by request id.
 *
 * <p>Requests wait in a bounded backlog while the stream's flow control says it is not ready, so a
 * slow peer pushes back instead of filling the heap. Each request has its own deadline. When the
 * stream breaks, every request on it fails at once and the next request opens a new stream; the
 * channel reconnects by itself with exponential back-off, and this class keeps it trying so that a
 * returning peer is noticed.
 */
final class PeerChannel implements AutoCloseable {
  private static final int MAX_BACKLOG = 8192;

  private final NodeId peer;
  private final ManagedChannel channel;
  private final ReplicaGrpc.ReplicaStub stub;
  private final Clock clock;
  private final ScheduledExecutorService timers;
  private final Duration callTimeout;
  private final Consumer<NodeId> onReachable;
  private final AtomicLong ids = new AtomicLong();
  private volatile boolean closed;
  private Stream current;

  PeerChannel(
      NodeId peer,
      ManagedChannel channel,
      Clock clock,
      ScheduledExecutorService timers,
      Duration callTimeout,
      Consumer<NodeId> onReachable) {
    this.peer = peer;
    this.channel = channel;
    this.stub = ReplicaGrpc.newStub(channel);
    this.clock = clock;
    this.timers = timers;
    this.callTimeout = callTimeout;
    this.onReachable = onReachable;
    watch(channel.getState(true));
  }

  ReplicaGrpc.ReplicaStub stub() {
    return stub;
  }

  /** Keeps the channel connecting while it is not ready, and reports each return to READY. */
  private void watch(ConnectivityState seen) {
    if (closed || seen == ConnectivityState.SHUTDOWN) {
      return;
    }
    channel.notifyWhenStateChanged(
        seen,
        () -> {
          ConnectivityState now = channel.getState(true);
          if (now == ConnectivityState.READY && seen != ConnectivityState.READY) {
            onReachable.accept(peer);
          }
          watch(now);
        });
  }

  ConnectivityState state() {
    return channel.getState(false);
  }

  /** Skips the rest of the reconnect back-off: the peer is known to be back. */
  void reconnectNow() {
    channel.resetConnectBackoff();
    channel.getState(true);
  }

  /** Sends one request on the shared stream; the answer or a failure comes within the deadline. */
  CompletableFuture<ReplicaResponse> call(ReplicaRequest.Builder request) {
    CompletableFuture<ReplicaResponse> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(unavailable("the transport is closed", null));
      return result;
    }
    long id = ids.incrementAndGet();
    Stream stream = stream();
    ScheduledFuture<?> deadline =
        timers.schedule(
            () -> {
              if (stream.forget(id)) {
                result.completeExceptionally(
                    unavailable("no answer within " + callTimeout.toMillis() + " ms", null));
              }
            },
            callTimeout.toMillis(),
            TimeUnit.MILLISECONDS);
    result.whenComplete((response, error) -> deadline.cancel(false));
    stream.send(id, request.setRequestId(id).setHlc(clock.current().value()).build(), result);
    return result;
  }

  private synchronized Stream stream() {
    if (current == null || current.broken) {
      current = new Stream();
    }
    return current;
  }

  private synchronized void retire(Stream stream) {
    if (current == stream) {
      current = null;
    }
  }

  PeerUnavailableException unavailable(String reason, Throwable cause) {
    return new PeerUnavailableException(peer, reason, cause);
  }

  @Override
  public void close() {
    closed = true;
    Stream stream;
    synchronized (this) {
      stream = current;
      current = null;
    }
    if (stream != null) {
      stream.shutdown();
    }
    channel.shutdown();
    try {
      if (!channel.awaitTermination(2, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      channel.shutdownNow();
    }
  }

  /** One bidirectional stream and the requests it carries. */
  private final class Stream implements ClientResponseObserver<ReplicaRequest, ReplicaResponse> {
    private final Map<Long, CompletableFuture<ReplicaResponse>> pending = new ConcurrentHashMap<>();
    private final ArrayDeque<ReplicaRequest> backlog = new ArrayDeque<>();
    private ClientCallStreamObserver<ReplicaRequest> requests;
    private volatile boolean broken;

    Stream() {
      stub.exchange(this);
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ReplicaRequest> requests) {
      this.requests = requests;
      requests.setOnReadyHandler(this::drain);
    }

    void send(long id, ReplicaRequest request, CompletableFuture<ReplicaResponse> result) {
      pending.put(id, result);
      synchronized (this) {
        if (broken) {
          fail(id, unavailable("the stream to it broke", null));
          return;
        }
        if (backlog.size() >= MAX_BACKLOG) {
          fail(id, unavailable("its stream is backed up", null));
          return;
        }
        backlog.add(request);
      }
      drain();
    }

    private synchronized void drain() {
      while (!broken && requests.isReady() && !backlog.isEmpty()) {
        requests.onNext(backlog.poll());
      }
    }

    boolean forget(long id) {
      return pending.remove(id) != null;
    }

    private void fail(long id, RuntimeException error) {
      CompletableFuture<ReplicaResponse> result = pending.remove(id);
      if (result != null) {
        result.completeExceptionally(error);
      }
    }

    @Override
    public void onNext(ReplicaResponse response) {
      clock.observe(new Version(response.getHlc()));
      CompletableFuture<ReplicaResponse> result = pending.remove(response.getRequestId());
      if (result != null) {
        result.complete(response);
      }
    }

    @Override
    public void onError(Throwable error) {
      broke(unavailable("its stream failed: " + error.getMessage(), error));
    }

    @Override
    public void onCompleted() {
      broke(unavailable("it closed the stream", null));
    }

    private void broke(RuntimeException error) {
      synchronized (this) {
        broken = true;
        backlog.clear();
      }
      retire(this);
      for (Long id : pending.keySet()) {
        fail(id, error);
      }
    }

    void shutdown() {
      synchronized (this) {
        broken = true;
        backlog.clear();
      }
      requests.cancel("node shutting down", null);
      for (Long id : pending.keySet()) {
        fail(id, unavailable("the transport is closed", null));
      }
    }
  }
}
