package io.kvorum.node.core;

import java.util.Objects;

/** A snapshot request that cannot be done: the name is taken, or no snapshot has it (SPEC §11). */
public final class SnapshotException extends KvorumException {
  /** Why. */
  public enum Reason {
    /** A snapshot of that name exists already: names are not reused (HTTP 409). */
    SNAPSHOT_EXISTS,
    /** No snapshot of that name (HTTP 404). */
    UNKNOWN_SNAPSHOT
  }

  private final Reason reason;
  private final String name;

  public SnapshotException(Reason reason, String name) {
    super(
        reason == Reason.SNAPSHOT_EXISTS
            ? "a snapshot named '" + name + "' exists already on this node"
            : "this node has no snapshot named '" + name + "'",
        null);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.name = name;
  }

  public Reason reason() {
    return reason;
  }

  /** The snapshot's name. */
  public String name() {
    return name;
  }
}
