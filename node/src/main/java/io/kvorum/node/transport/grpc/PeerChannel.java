package io.kvorum.node.transport.grpc;

import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The connection to one peer: a gRPC channel bound to one event loop, every call on it through the
 * node's {@link WireEdge}, and over it the shared replica stream ({@link ReplicaStream}).
 *
 * <p>The channel reconnects by itself with exponential back-off; this class keeps it trying, so a
 * returning peer is noticed, and reports each return to READY.
 */
final class PeerChannel implements AutoCloseable {
  private final NodeId peer;
  private final ManagedChannel channel;
  private final EventLoop loop;
  private final ReplicaGrpc.ReplicaStub stub;
  private final ReplicaStream stream;
  private final Consumer<NodeId> onReachable;
  private volatile boolean closed;

  /**
   * @param channel a channel whose connections all live on {@code loop}
   * @param callTimeout the deadline of each replica read and write
   */
  PeerChannel(
      NodeId peer,
      ManagedChannel channel,
      EventLoop loop,
      WireEdge edge,
      Duration callTimeout,
      Consumer<NodeId> onReachable) {
    this.peer = peer;
    this.channel = channel;
    this.loop = loop;
    this.stub = ReplicaGrpc.newStub(ClientInterceptors.intercept(channel, edge.client()));
    this.stream = new ReplicaStream(peer, loop, stub, callTimeout);
    this.onReachable = onReachable;
    watch(channel.getState(true));
  }

  NodeId peer() {
    return peer;
  }

  /** The event loop every connection of this channel lives on. */
  EventLoop loop() {
    return loop;
  }

  /** For the calls other than the replica stream (scans, hellos). */
  ReplicaGrpc.ReplicaStub stub() {
    return stub;
  }

  /** Sends one request on the shared stream; the answer or a failure comes within the deadline. */
  CompletableFuture<ReplicaResponse> call(ReplicaRequest.Builder request) {
    return stream.submit(request);
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

  /** Completes once the channel is READY, or after {@code limit}: never exceptionally. */
  CompletableFuture<Void> readyWithin(Duration limit) {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    ScheduledFuture<?> timer =
        loop.schedule(() -> ready.complete(null), limit.toNanos(), TimeUnit.NANOSECONDS);
    ready.whenComplete((done, error) -> timer.cancel(false));
    awaitReady(channel.getState(true), ready);
    return ready;
  }

  private void awaitReady(ConnectivityState seen, CompletableFuture<Void> ready) {
    if (ready.isDone()
        || seen == ConnectivityState.READY
        || seen == ConnectivityState.SHUTDOWN
        || closed) {
      ready.complete(null);
      return;
    }
    channel.notifyWhenStateChanged(seen, () -> awaitReady(channel.getState(false), ready));
  }

  /** Skips the rest of the reconnect back-off: the peer is known to be back. */
  void reconnectNow() {
    channel.resetConnectBackoff();
    channel.getState(true);
  }

  PeerUnavailableException unavailable(String reason, Throwable cause) {
    return new PeerUnavailableException(peer, reason, cause);
  }

  @Override
  public void close() {
    closed = true;
    stream.close();
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
}
