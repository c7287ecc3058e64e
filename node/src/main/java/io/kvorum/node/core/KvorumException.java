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
  protected KvorumException(String message, Throwable cause) {
    super(message, cause);
  }
}
