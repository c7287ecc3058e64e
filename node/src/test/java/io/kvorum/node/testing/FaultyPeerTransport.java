package io.kvorum.node.testing;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A real transport with the faults of its node's links ({@link FaultyInterconnect}) put on it,
 * where a network's faults are: under the node's circuit breaker, at the calls to each peer. Over a
 * cut link a call is lost: it fails at its deadline with {@link PeerUnavailableException}, as does
 * one whose answer comes back over a link cut meanwhile, and the peer is unreachable. Over a slowed
 * link the request leaves late and the answer arrives late; a call slower than its deadline fails
 * although its request still arrives. Each batch of a cursor is a call of its own. A peer that is
 * down is the real transport's to notice (its connection is refused).
 */
public final class FaultyPeerTransport implements PeerTransport {
  private final PeerTransport delegate;
  private final NodeId self;
  private final FaultyInterconnect links;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final List<Consumer<NodeId>> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  /**
   * @param callTimeout deadline of a read, a write, a ping, gossip, tree hashes and a scan batch
   * @param helloTimeout deadline of a hello and of a join
   */
  FaultyPeerTransport(
      PeerTransport delegate,
      NodeId self,
      FaultyInterconnect links,
      Duration callTimeout,
      Duration helloTimeout) {
    this.delegate = delegate;
    this.self = self;
    this.links = links;
    this.callTimeout = callTimeout;
    this.helloTimeout = helloTimeout;
    delegate.onPeerReachable(
        peer -> {
          if (!links.isCut(self, peer)) {
            reachable(peer);
          }
        });
  }

  NodeId self() {
    return self;
  }

  /** Tells the listeners {@code peer} is reachable (its connection is up, or its link healed). */
  void reachable(NodeId peer) {
    if (!closed) {
      listeners.forEach(listener -> listener.accept(peer));
    }
  }

  /**
   * Makes {@code call} to {@code peer} over the link: the request leaves as the link allows, the
   * answer comes back as the way back allows, and the caller has one or a failure by {@code
   * timeout}. Over a sound link the call is the real one, made and answered on the threads it would
   * be without this decorator (so a cut made while it is in flight does not lose its answer).
   */
  private <T> CompletableFuture<T> send(
      NodeId peer, Duration timeout, Supplier<CompletableFuture<T>> call) {
    if (!links.faulted(self, peer)) {
      return call.get();
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    links.carry(
        self,
        peer,
        () -> {
          CompletableFuture<T> sent;
          try {
            sent = call.get();
          } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
          }
          sent.whenComplete(
              (value, error) ->
                  links.carry(
                      peer,
                      self,
                      () -> {
                        if (error == null) {
                          answer.complete(value);
                        } else {
                          answer.completeExceptionally(Failures.unwrap(error));
                        }
                      }));
        });
    return answer
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error ->
                CompletableFuture.failedFuture(
                    error instanceof TimeoutException
                        ? new PeerUnavailableException(
                            peer, "no answer within " + timeout.toMillis() + " ms", error)
                        : error));
  }

  /** {@code remote} with each batch a call over the link, answered within {@code timeout}. */
  private ScanCursor cursor(NodeId peer, Duration timeout, ScanCursor remote) {
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return send(peer, timeout, () -> remote.next(maxEntries, maxBytes));
      }

      @Override
      public void close() {
        remote.close();
      }
    };
  }

  private Duration deadline(Deadline deadline) {
    return deadline.of(callTimeout, helloTimeout);
  }

  @Override
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    return send(
        peer, deadline(operation.deadline()), () -> delegate.call(peer, operation, request));
  }

  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    return cursor(peer, deadline(operation.deadline()), delegate.open(peer, operation, request));
  }

  /** Over the link to the node serving {@code port}, when it is one of this cluster's. */
  @Override
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    Optional<NodeId> peer = links.servingOn(port);
    if (peer.isEmpty()) {
      return delegate.callAt(host, port, operation, request);
    }
    return send(
        peer.get(),
        deadline(operation.deadline()),
        () -> delegate.callAt(host, port, operation, request));
  }

  @Override
  public void members(List<Member> members) {
    delegate.members(members);
  }

  @Override
  public PeerState state(NodeId peer) {
    return links.isCut(self, peer) ? new PeerState(false, "partitioned") : delegate.state(peer);
  }

  /** How the real transport sees {@code peer}, whatever its link. */
  PeerState connection(NodeId peer) {
    return delegate.state(peer);
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    listeners.add(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    delegate.peerAnnounced(peer);
  }

  @Override
  public void close() {
    closed = true;
    links.forget(this);
    delegate.close();
  }
}
