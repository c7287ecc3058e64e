package io.kvorum.node.sim;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.testing.PeerFailures;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One incarnation's client side of the {@link SimNetwork}, keeping {@link PeerTransport}'s contract
 * in virtual time: every request and answer is a message of the network (late, lost, duplicated or
 * cut off as its faults say), carrying its sender's clock; every call has its deadline as an event
 * of the caller; a call to a node that is down is refused at once, and calls waiting on a node
 * whose process died fail when it dies (its connections were reset). Peer failures arrive as the
 * gRPC transport delivers them ({@link PeerFailures}).
 */
final class SimTransport implements PeerTransport {
  private final NodeId self;
  private final Clock clock;
  private final SimNetwork network;
  private final SimScheduler.Owner incarnation;
  private final Duration requestTimeout;
  private final Duration catchUpTimeout;
  private final List<Consumer<NodeId>> listeners = new ArrayList<>();
  private final Map<NodeId, Set<CompletableFuture<?>>> open = new LinkedHashMap<>();
  private boolean closed;

  SimTransport(
      NodeId self,
      Clock clock,
      SimNetwork network,
      SimScheduler.Owner incarnation,
      Duration requestTimeout,
      Duration catchUpTimeout) {
    this.self = self;
    this.clock = clock;
    this.network = network;
    this.incarnation = incarnation;
    this.requestTimeout = requestTimeout;
    this.catchUpTimeout = catchUpTimeout;
  }

  /** {@code peer} can be reached (again): the listeners hear it, as an event of this node. */
  void reachable(NodeId peer) {
    network
        .scheduler()
        .after(
            0,
            incarnation,
            () -> {
              if (!closed) {
                listeners.forEach(listener -> listener.accept(peer));
              }
            });
  }

  /** {@code peer}'s connections were reset: what waits on it fails now. */
  void peerDown(NodeId peer) {
    failOpen(peer, "its connection broke");
  }

  @Override
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    return send(peer, timeout(operation.deadline()), h -> h.handle(operation, request));
  }

  @Override
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    Optional<NodeId> peer = network.hostOf(host);
    if (peer.isEmpty()) {
      return CompletableFuture.failedFuture(
          new PeerUnavailableException(self, "no node at " + host + ":" + port, null));
    }
    return call(peer.get(), operation, request);
  }

  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    CompletableFuture<ScanCursor> remote =
        send(
            peer,
            requestTimeout,
            h -> CompletableFuture.completedFuture(h.open(operation, request)));
    Duration batchTimeout = timeout(operation.deadline());
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return remote.thenCompose(
            cursor -> send(peer, batchTimeout, h -> cursor.next(maxEntries, maxBytes)));
      }

      @Override
      public void close() {
        remote.thenAccept(
            cursor ->
                send(
                    peer,
                    requestTimeout,
                    h -> {
                      cursor.close();
                      return CompletableFuture.completedFuture(null);
                    }));
      }
    };
  }

  /**
   * Carries one call to {@code peer} and its answer back as messages of the network; the answer, a
   * failure of the peer's as {@link PeerFailures} delivers it, or no answer within {@code timeout}.
   */
  private <T> CompletableFuture<T> send(
      NodeId peer, Duration timeout, Function<PeerHandlers, CompletableFuture<T>> call) {
    Optional<SimNetwork.Endpoint> target = network.endpoint(peer);
    if (closed || target.isEmpty()) {
      return CompletableFuture.failedFuture(
          new PeerUnavailableException(peer, "connection refused", null));
    }
    SimNetwork.Endpoint endpoint = target.get();
    CompletableFuture<T> answer = track(peer, new CompletableFuture<>());
    SimScheduler.Event deadline =
        network
            .scheduler()
            .after(
                timeout.toNanos(),
                incarnation,
                () ->
                    answer.completeExceptionally(
                        new PeerUnavailableException(
                            peer, "no answer within " + timeout.toMillis() + " ms", null)));
    answer.whenComplete((value, error) -> deadline.cancelled = true);
    network.send(
        self,
        peer,
        endpoint.incarnation(),
        true,
        clock.current().value(),
        endpoint.clock(),
        () -> {
          CompletableFuture<T> result;
          try {
            result = call.apply(endpoint.handlers());
          } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
          }
          result.whenComplete(
              (value, error) ->
                  network.send(
                      peer,
                      self,
                      incarnation,
                      false,
                      endpoint.clock().current().value(),
                      clock,
                      () -> {
                        if (error == null) {
                          answer.complete(value);
                        } else {
                          answer.completeExceptionally(PeerFailures.arriving(peer, error));
                        }
                      }));
        });
    return answer;
  }

  private <T> CompletableFuture<T> track(NodeId peer, CompletableFuture<T> answer) {
    Set<CompletableFuture<?>> calls = open.computeIfAbsent(peer, p -> new LinkedHashSet<>());
    calls.add(answer);
    answer.whenComplete((value, error) -> calls.remove(answer));
    return answer;
  }

  private void failOpen(NodeId peer, String reason) {
    for (CompletableFuture<?> call : List.copyOf(open.getOrDefault(peer, Set.of()))) {
      call.completeExceptionally(new PeerUnavailableException(peer, reason, null));
    }
  }

  private Duration timeout(Deadline deadline) {
    return deadline.of(requestTimeout, catchUpTimeout);
  }

  @Override
  public void members(List<Member> members) {
    // every node of the network is reachable by its id
  }

  @Override
  public PeerState state(NodeId peer) {
    // A cut link is not seen here, as a gRPC channel does not see one: calls time out.
    return network.endpoint(peer).isEmpty()
        ? new PeerState(false, "connection refused")
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
    List.copyOf(open.keySet()).forEach(peer -> failOpen(peer, "the transport is closed"));
  }
}
