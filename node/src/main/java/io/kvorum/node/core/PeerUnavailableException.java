package io.kvorum.node.core;

/**
 * A peer did not answer: unreachable, too slow, refused by its circuit breaker or bulkhead, or it
 * failed the request. The coordinator counts it as a missing replica answer.
 */
public final class PeerUnavailableException extends KvorumException {
  private final NodeId peer;

  public PeerUnavailableException(NodeId peer, String reason, Throwable cause) {
    super(peer + " is not available: " + reason, cause);
    this.peer = peer;
  }

  public NodeId peer() {
    return peer;
  }
}
