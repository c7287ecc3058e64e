package io.kvorum.node.testing;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One node's side of an {@link InMemoryNetwork}: the faults are the network's. Every call crosses
 * the network in {@link #send}, the one place where, as on the wire, the clock is carried both ways
 * and the peer's errors are translated.
 */
final class InMemoryPeerTransport implements PeerTransport {
  private final NodeId self;
  private final Clock clock;
  private final InMemoryNetwork network;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final List<Consumer<NodeId>> listeners = new CopyOnWriteArrayList<>();
  private final Map<NodeId, Set<CompletableFuture<?>>> open = new ConcurrentHashMap<>();
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

  /** {@code peer} went down: its connection breaks, failing what waits on it at once. */
  void disconnected(NodeId peer) {
    failOpen(peer, "its connection broke");
  }

  /**
   * Carries one call to {@code peer} and its answer back, as the network allows: refused at once if
   * the peer is down, lost (so the caller times out) if a direction is cut, late if it is slowed.
   * Each message carries its sender's clock and moves the receiver's; a failure of the peer's
   * arrives as the same kind of error, as over gRPC.
   */
  private <T> CompletableFuture<T> send(
      NodeId peer, Duration timeout, Function<PeerHandlers, CompletableFuture<T>> call) {

    Optional<InMemoryNetwork.Endpoint> target = network.endpoint(peer);
    if (closed || target.isEmpty()) {
      return CompletableFuture.failedFuture(unavailable(peer, "connection refused", null));
    }
    InMemoryNetwork.Endpoint endpoint = target.get();
    CompletableFuture<T> answer = track(peer, new CompletableFuture<>());
    long sentAt = clock.current().value();
    network.carry(
        self,
        peer,
        () -> {
          endpoint.clock().observe(new Version(sentAt));
          CompletableFuture<T> result;
          try {
            result = call.apply(endpoint.handlers());
          } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
          }
          result.whenComplete(
              (value, error) -> {
                long answeredAt = endpoint.clock().current().value();
                network.carry(
                    peer,
                    self,
                    () -> {
                      clock.observe(new Version(answeredAt));
                      if (error == null) {
                        answer.complete(value);
                      } else {
                        answer.completeExceptionally(PeerFailures.arriving(peer, error));
                      }
                    });
              });
        });
    return answer
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error ->
                CompletableFuture.failedFuture(
                    error instanceof TimeoutException
                        ? unavailable(peer, "no answer within " + timeout.toMillis() + " ms", error)
                        : error));
  }

  private <T> CompletableFuture<T> track(NodeId peer, CompletableFuture<T> answer) {
    Set<CompletableFuture<?>> calls =
        open.computeIfAbsent(peer, p -> ConcurrentHashMap.newKeySet());
    calls.add(answer);
    answer.whenComplete((value, error) -> calls.remove(answer));
    if (closed || network.endpoint(peer).isEmpty()) {
      answer.completeExceptionally(unavailable(peer, "its connection broke", null));
    }
    return answer;
  }

  private void failOpen(NodeId peer, String reason) {
    Set<CompletableFuture<?>> calls = open.getOrDefault(peer, Set.of());
    for (CompletableFuture<?> call : List.copyOf(calls)) {
      call.completeExceptionally(unavailable(peer, reason, null));
    }
  }

  private static PeerUnavailableException unavailable(NodeId peer, String reason, Throwable e) {
    return new PeerUnavailableException(peer, reason, e);
  }

  private Duration deadline(Deadline deadline) {
    return deadline.of(callTimeout, helloTimeout);
  }

  @Override
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    return send(
        peer, deadline(operation.deadline()), handlers -> handlers.handle(operation, request));
  }

  @Override
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    Optional<NodeId> peer = network.hostOf(host);
    if (peer.isEmpty()) {
      return CompletableFuture.failedFuture(
          unavailable(self, "no node at " + host + ":" + port, null));
    }
    return call(peer.get(), operation, request);
  }

  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    return remoteCursor(
        peer,
        send(
            peer,
            callTimeout,
            handlers -> CompletableFuture.completedFuture(handlers.open(operation, request))),
        deadline(operation.deadline()));
  }

  @Override
  public void members(List<Member> members) {
    // every node of the network is reachable by its id
  }

  /** A cursor open at {@code peer}, each batch crossing the network within {@code timeout}. */
  private ScanCursor remoteCursor(
      NodeId peer, CompletableFuture<ScanCursor> remote, Duration timeout) {
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return remote.thenCompose(
            cursor -> send(peer, timeout, s -> cursor.next(maxEntries, maxBytes)));
      }

      @Override
      public void close() {
        remote.thenAccept(ScanCursor::close);
      }
    };
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
    open.keySet().forEach(peer -> failOpen(peer, "the transport is closed"));
  }
}
