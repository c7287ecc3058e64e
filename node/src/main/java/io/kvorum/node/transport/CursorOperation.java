package io.kvorum.node.transport;

import java.util.Objects;

/**
 * One kind of request a protocol sends to a peer that is answered by a stream of records in key
 * order, read through a {@link io.kvorum.node.core.ScanCursor} with back-pressure: a range scan,
 * the records of hash-tree segments, a hand-off. As {@link Operation}, declared by the protocol
 * that owns it, opened through {@link PeerTransport#open} and served through {@link PeerHandlers}.
 *
 * @param name the operation's name, unique among all protocols
 * @param deadline how long the caller waits for each batch
 * @param <Q> the request
 */
public record CursorOperation<Q>(String name, Deadline deadline) {
  public CursorOperation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(deadline, "deadline");
  }

  @Override
  public String toString() {
    return name;
  }
}
