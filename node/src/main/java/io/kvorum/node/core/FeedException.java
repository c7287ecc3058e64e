package io.kvorum.node.core;

import java.util.Objects;

/** A change feed (SPEC §12) that cannot start from its cursor, or that ends before its client. */
public final class FeedException extends KvorumException {
  /** Why. */
  public enum Reason {
    /**
     * The cursor is older than {@code --change-retention}: the changes after it are gone. Read the
     * range again and follow from the cursor that read answers (HTTP 410).
     */
    CURSOR_EXPIRED,
    /**
     * The consumer did not read what the feed sent fast enough, and was cut off rather than made to
     * hold changes without bound; resume from the last cursor it read (an error line).
     */
    TOO_SLOW,
    /**
     * The node captures no changes ({@code --change-retention 0}) and serves no feeds: a setting,
     * not a passing state, so retrying the same node cannot help (HTTP 501).
     */
    NOT_CAPTURED
  }

  private final Reason reason;

  public FeedException(Reason reason, String message) {
    super(message, null);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public Reason reason() {
    return reason;
  }
}
