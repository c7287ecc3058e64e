package io.kvorum.node.core;

import java.io.IOException;
import java.util.Locale;

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
        cause,
        kind == Kind.FAILURE); // a full disk fails every write: no stack trace for each
    this.kind = kind;
  }

  /**
   * A failed file operation outside the storage engine (the clock's ceiling file): {@code NO_SPACE}
   * when the file system said it is full or the quota is used up, {@code FAILURE} otherwise.
   */
  public static StorageException ofIo(String operation, IOException cause) {
    return new StorageException(
        noSpace(cause) ? Kind.NO_SPACE : Kind.FAILURE, operation, null, cause);
  }

  /** Whether {@code message}, an operating system's error text, says the disk is full. */
  public static boolean saysNoSpace(String message) {
    String text = String.valueOf(message).toLowerCase(Locale.ROOT);
    return text.contains("no space left") || text.contains("disk quota exceeded");
  }

  private static boolean noSpace(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (saysNoSpace(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  public Kind kind() {
    return kind;
  }
}
