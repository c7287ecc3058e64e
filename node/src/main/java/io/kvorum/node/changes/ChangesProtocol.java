package io.kvorum.node.changes;

import io.kvorum.node.core.KeyRange;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import java.util.Objects;

/**
 * The change-feed protocol between nodes: a node serving a feed reads each member's change log from
 * a position ({@link #READ}); its message ({@link Read}), its handler ({@link #serve}); the caller
 * is {@link ChangeFeed}.
 */
public final class ChangesProtocol {
  /** A page of a peer's change log. Carries the clock both ways and keeps the request deadline. */
  public static final Operation<Read, ChangeLog.Page> READ = Operation.of("changes");

  private ChangesProtocol() {}

  /**
   * A read of a change log.
   *
   * @param range the keys
   * @param after the stamp after which to read
   * @param limit at most this many changes
   */
  public record Read(KeyRange range, long after, int limit) {
    public Read {
      Objects.requireNonNull(range, "range");
      if (limit < 1) {
        throw new IllegalArgumentException("a read of changes asks for at least one: " + limit);
      }
    }
  }

  /** Answers reads with {@code log}'s pages. */
  public static void serve(PeerHandlers handlers, ChangeLog log) {
    handlers.on(READ, read -> log.read(read.range(), read.after(), read.limit()));
  }
}
