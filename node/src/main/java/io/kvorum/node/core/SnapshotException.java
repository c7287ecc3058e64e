package io.kvorum.node.core;

import java.util.Objects;

/** A snapshot request that cannot be done: the name is taken, or no snapshot has it (SPEC §11). */
public final class SnapshotException extends KvorumException {
  /** Why. */
  public enum Reason {
    /** A snapshot of that name exists already: names are not reused (HTTP 409). */
    SNAPSHOT_EXISTS,
    /** No snapshot of that name, or no such file in it (HTTP 404). */
    UNKNOWN_SNAPSHOT
  }

  private final Reason reason;
  private final String name;

  public SnapshotException(Reason reason, String name) {
    this(
        reason,
        name,
        reason == Reason.SNAPSHOT_EXISTS
            ? "a snapshot named '" + name + "' exists already on this node"
            : "this node has no snapshot named '" + name + "'");
  }

  private SnapshotException(Reason reason, String name, String message) {
    super(message, null);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.name = name;
  }

  /** Snapshot {@code name} exists and holds no file {@code file} (HTTP 404). */
  public static SnapshotException noFile(String name, String file) {
    return new SnapshotException(
        Reason.UNKNOWN_SNAPSHOT, name, "snapshot '" + name + "' has no file '" + file + "'");
  }

  public Reason reason() {
    return reason;
  }

  /** The snapshot's name. */
  public String name() {
    return name;
  }
}
