package io.kvorum.node.core;

/** The storage engine failed an operation. */
public final class StorageException extends KvorumException {
  /** What kind of failure, so edges can answer differently for a full disk. */
  public enum Kind {
    /** The disk (or the engine's space budget) is full; writes cannot proceed. */
    NO_SPACE,
    /** Any other failure: I/O, corruption, a closed engine. */
    FAILURE
  }

  private final Kind kind;

  public StorageException(Kind kind, String operation, Key key, Throwable cause) {
    super(
        operation
            + (key == null ? "" : " of key '" + key + "'")
            + " failed: "
            + (cause == null ? kind.name() : cause.getMessage()),
        cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
