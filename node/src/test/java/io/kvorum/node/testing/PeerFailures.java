package io.kvorum.node.testing;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;

/**
 * A peer's failure as its caller sees it, for the transports of tests that carry no bytes (the
 * in-memory network, the simulator's): the table of the gRPC transport's {@code WireEdge}, which
 * {@code PeerTransportContract} checks on every transport.
 */
public final class PeerFailures {
  private PeerFailures() {}

  /** What {@code error}, raised by {@code peer}'s handler, arrives as. */
  public static KvorumException arriving(NodeId peer, Throwable error) {
    return switch (Failures.unwrap(error)) {
      case OverloadedException e -> e;
      case InvalidRequestException e -> e;
      case StorageException e when e.kind() == StorageException.Kind.NO_SPACE -> e;
      case UnavailableException e -> e;
      case ClockOffsetException e ->
          new ClockOffsetException(
              peer + " refused the write: " + e.getMessage(),
              e.offsetMillis(),
              e.maxOffsetMillis());
      case Throwable e ->
          new StorageException(StorageException.Kind.FAILURE, "a request to " + peer, null, e);
    };
  }
}
