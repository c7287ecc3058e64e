package io.kvorum.node.clock;

import io.kvorum.node.core.NodeId;
import java.util.concurrent.CompletableFuture;

/**
 * How {@link ClockOffsets} reads the peers' wall clocks: the inter-node transport, seen from the
 * clock. Never blocks.
 */
public interface PeerClocks {
  /**
   * {@code peer}'s wall clock, Unix milliseconds, as it answered a ping; fails when no answer came
   * within the transport's deadline.
   */
  CompletableFuture<Long> wallClock(NodeId peer);

  /** Whether {@code peer} can be reached now, so that a heartbeat pings only those that can. */
  boolean reachable(NodeId peer);
}
