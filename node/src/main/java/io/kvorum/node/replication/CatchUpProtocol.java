package io.kvorum.node.replication;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catch-up protocol: a starting node says hello to each peer ({@link CatchUp}), and the peer
 * delivers the hints it holds for it, and has them confirmed, before it answers ({@link #serve}).
 */
public final class CatchUpProtocol {
  private static final Logger log = LoggerFactory.getLogger(CatchUpProtocol.class);

  /**
   * Announces the calling node (the request) to a peer; answers how many hints the peer delivered.
   * Waits up to the catch-up timeout.
   */
  public static final Operation<NodeId, Long> HELLO =
      Operation.<NodeId, Long>of("hello").within(Deadline.CATCH_UP);

  private CatchUpProtocol() {}

  /** Answers hellos by delivering the hints {@code handoff} holds for the caller. */
  public static void serve(PeerHandlers handlers, HintedHandoff handoff) {
    handlers.on(
        HELLO,
        peer -> {
          log.info("{} says hello; delivering the hints held for it", peer);
          return handoff.welcome(peer);
        });
  }
}
