package io.kvorum.node.core;

/**
 * The errors kvorum raises on purpose. Each carries what a caller needs to answer its own client;
 * what it means (the peer's fault? hinted? which answer at the edge?) is its {@link FailureKind}'s
 * row; each edge (HTTP, gRPC) translates them once.
 */
public abstract sealed class KvorumException extends RuntimeException
    permits ClockOffsetException,
        ClusterChangeException,
        ConditionFailedException,
        FeedException,
        InvalidRequestException,
        NotEnoughReplicasException,
        OverloadedException,
        SnapshotException,
        PeerUnavailableException,
        StorageException,
        UnavailableException {
  /**
   * Without a stack trace of its own (its cause keeps one): these are answers, not bugs, and some
   * come on every request while a peer is down or a node is overloaded, where filling in the stack
   * cost more than the rest of the failure (a fifth of the simulator's CPU went there).
   */
  protected KvorumException(String message, Throwable cause) {
    super(message, cause, true, false);
  }

  /**
   * @param stackTrace whether to fill in the stack trace: for a failure that is logged as an error
   *     and may be a bug ({@link StorageException})
   */
  protected KvorumException(String message, Throwable cause, boolean stackTrace) {
    super(message, cause, true, stackTrace);
  }
}
