package io.kvorum.node.core;

/**
 * A peer did not answer: unreachable, too slow, refused by its circuit breaker or bulkhead, or it
 * failed the request. The coordinator counts it as a missing replica answer.
 */
public final class PeerUnavailableException extends KvorumException {
  private final NodeId peer;
  private final boolean unsent;

  public PeerUnavailableException(NodeId peer, String reason, Throwable cause) {
    this(peer, reason, cause, false);
  }

  /**
   * @param unsent whether the request certainly never left this node (refused by the peer's circuit
   *     breaker or bulkhead here), so the peer cannot have acted on it
   */
  public PeerUnavailableException(NodeId peer, String reason, Throwable cause, boolean unsent) {
    super(peer + " is not available: " + reason, cause);
    this.peer = peer;
    this.unsent = unsent;
  }

  /** Whether the request certainly never left this node: see the constructor. */
  public boolean unsent() {
    return unsent;
  }

  public NodeId peer() {
    return peer;
  }
}
