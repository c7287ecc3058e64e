package io.kvorum.node.transport;

import java.time.Duration;

/**
 * How long a caller waits for a peer's answer (or for each batch of a cursor): the classes of
 * deadline a transport keeps, each sized from the node's configuration by the transport.
 */
public enum Deadline {
  /** The request timeout ({@code --request-timeout}): the replica calls of a client's request. */
  REQUEST,
  /**
   * The catch-up timeout ({@code --catch-up-timeout}): a hello, which waits for the peer to deliver
   * its hints, and a join, which waits for a member to admit the node.
   */
  CATCH_UP,
  /**
   * One minute, for a batch of a cursor the peer fills by passing over many records it does not
   * send (the records of hash-tree segments, a hand-off).
   */
  LONG_BATCH;

  /** The wait of {@link #LONG_BATCH}. */
  public static final Duration LONG_BATCH_WAIT = Duration.ofMinutes(1);

  /** The wait this deadline means for a transport of these timeouts. */
  public Duration of(Duration requestTimeout, Duration catchUpTimeout) {
    return switch (this) {
      case REQUEST -> requestTimeout;
      case CATCH_UP -> catchUpTimeout;
      case LONG_BATCH -> LONG_BATCH_WAIT;
    };
  }
}
