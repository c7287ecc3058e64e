package io.kvorum.node.changes;

import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import java.util.List;

/**
 * The change-feed protocol between nodes: a node serving feeds reads a member's change log, every
 * feed's read in one call ({@link #READ}); its handler ({@link #serve}); the caller is {@link
 * GatheredReads}.
 */
public final class ChangesProtocol {
  /**
   * Reads of a peer's change log, answered by a page each in their order. Carries the clock both
   * ways and keeps the request deadline.
   */
  public static final Operation<List<ChangeLog.Read>, List<ChangeLog.Page>> READ =
      Operation.of("changes");

  private ChangesProtocol() {}

  /** Answers reads with {@code log}'s pages. */
  public static void serve(PeerHandlers handlers, ChangeLog log) {
    handlers.on(READ, log::readAll);
  }
}
