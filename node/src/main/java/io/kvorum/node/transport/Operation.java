package io.kvorum.node.transport;

import java.util.Objects;

/**
 * One kind of request a protocol sends to a peer, and the answer it gets: what the transport needs
 * to carry it without knowing what it means. The protocol that owns it declares it as a constant
 * beside its messages (as {@code ReplicaProtocol.READ}), calls it through {@link
 * PeerTransport#call} and serves it by registering a handler in {@link PeerHandlers}; each adapter
 * maps it onto its wire once.
 *
 * @param name the operation's name, unique among all protocols: the {@code operation} label of
 *     {@code kvorum_replica_calls_seconds} and the name in the failures' messages
 * @param deadline how long the caller waits for the answer
 * @param guarded whether the peer's circuit breaker and bulkhead guard it: operations that go to
 *     every member whether it is up or not (gossip) or to a node not yet a peer (join) are not, so
 *     that their failures do not close the way for the requests of clients
 * @param <Q> the request
 * @param <A> the answer
 */
public record Operation<Q, A>(String name, Deadline deadline, boolean guarded) {
  public Operation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(deadline, "deadline");
  }

  /** An operation answered within the request timeout, guarded. */
  public static <Q, A> Operation<Q, A> of(String name) {
    return new Operation<>(name, Deadline.REQUEST, true);
  }

  /** This operation, with {@code deadline}. */
  public Operation<Q, A> within(Deadline deadline) {
    return new Operation<>(name, deadline, guarded);
  }

  /** This operation, not guarded by the peer's circuit breaker and bulkhead. */
  public Operation<Q, A> unguarded() {
    return new Operation<>(name, deadline, false);
  }

  @Override
  public String toString() {
    return name;
  }
}
