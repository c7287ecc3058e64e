package io.kvorum.node.testing;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/** One node's side of an {@link InMemoryNetwork}: the faults are the network's. */
final class InMemoryPeerTransport implements PeerTransport {
  private final NodeId self;
  private final Clock clock;
  private final InMemoryNetwork network;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final List<Consumer<NodeId>> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  InMemoryPeerTransport(
      NodeId self,
      Clock clock,
      InMemoryNetwork network,
      Duration callTimeout,
      Duration helloTimeout) {
    this.self = self;
    this.clock = clock;
    this.network = network;
    this.callTimeout = callTimeout;
    this.helloTimeout = helloTimeout;
  }

  NodeId self() {
    return self;
  }

  void reachable(NodeId peer) {
    if (!closed) {
      listeners.forEach(listener -> listener.accept(peer));
    }
  }

  /**
   * Carries one call to {@code peer} and its answer back, as the network allows: refused at once if
   * the peer is down, lost (so the caller times out) if a direction is cut.
   */
  private <T> CompletableFuture<T> send(
      NodeId peer, Duration timeout, Function<ReplicaService, CompletableFuture<T>> call) {
    Optional<InMemoryNetwork.Endpoint> target = network.endpoint(peer);
    if (closed || target.isEmpty()) {
      return CompletableFuture.failedFuture(
          new PeerUnavailableException(peer, "connection refused", null));
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    if (!network.isCut(self, peer)) {
      long sentAt = clock.current().value();
      Runnable deliver =
          () -> {
            target.get().clock().observe(new io.kvorum.node.core.Version(sentAt));
            CompletableFuture<T> result;
            try {
              result = call.apply(target.get().service());
            } catch (RuntimeException e) {
              result = CompletableFuture.failedFuture(e);
            }
            result.whenComplete(
                (value, error) -> {
                  if (network.isCut(peer, self)) {
                    return; // the answer is lost
                  }
                  clock.observe(target.get().clock().current());
                  if (error == null) {
                    answer.complete(value);
                  } else {
                    answer.completeExceptionally(
                        new PeerUnavailableException(peer, "it failed the request", error));
                  }
                });
          };
      Duration delay = network.delay(self, peer);
      if (delay.isZero()) {
        network.wire.execute(deliver);
      } else {
        network.timers.schedule(
            () -> network.wire.execute(deliver), delay.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    return answer
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error ->
                CompletableFuture.failedFuture(
                    error instanceof TimeoutException
                        ? new PeerUnavailableException(peer, "no answer in time", error)
                        : error));
  }

  @Override
  public CompletableFuture<Optional<Record>> read(NodeId peer, Key key) {
    return send(peer, callTimeout, service -> service.read(key));
  }

  @Override
  public CompletableFuture<Void> write(NodeId peer, Key key, Record record) {
    return send(peer, callTimeout, service -> service.write(key, record));
  }

  @Override
  public CompletableFuture<Long> hello(NodeId peer) {
    return send(peer, helloTimeout, service -> service.hello(self));
  }

  @Override
  public ScanCursor scan(NodeId peer, KeyRange range) {
    CompletableFuture<ScanCursor> remote = send(peer, callTimeout, s -> completed(s.scan(range)));
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return remote.thenCompose(
            cursor -> send(peer, callTimeout, s -> cursor.next(maxEntries, maxBytes)));
      }

      @Override
      public void close() {
        remote.thenAccept(ScanCursor::close);
      }
    };
  }

  private static <T> CompletableFuture<T> completed(T value) {
    return CompletableFuture.completedFuture(value);
  }

  @Override
  public PeerState state(NodeId peer) {
    if (network.endpoint(peer).isEmpty()) {
      return new PeerState(false, "down");
    }
    return network.isCut(self, peer)
        ? new PeerState(false, "partitioned")
        : new PeerState(true, "connected");
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    listeners.add(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    // nothing to forget: this network has no back-off
  }

  @Override
  public void close() {
    closed = true;
  }
}
