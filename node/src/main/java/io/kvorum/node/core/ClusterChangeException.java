package io.kvorum.node.core;

import java.util.Map;
import java.util.Objects;

/**
 * A membership change that cannot be made (SPEC §8): another change is in progress, the node named
 * is not a member, or it may not be removed so.
 */
public final class ClusterChangeException extends KvorumException {
  /** Why. */
  public enum Reason {
    /** Another change is in progress: one at a time (HTTP 409). */
    CHANGE_IN_PROGRESS,
    /** The node named is not a member (HTTP 404). */
    UNKNOWN_NODE,
    /** The node is up: it must leave by decommission, not removal (HTTP 409). */
    NODE_IS_UP,
    /** The node is the last member that would own data (HTTP 409). */
    LAST_MEMBER
  }

  private final Reason reason;
  private final Map<String, Object> details;

  /**
   * @param details what the caller may want to know, e.g. the change in progress
   */
  public ClusterChangeException(Reason reason, String message, Map<String, Object> details) {
    super(message, null);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.details = Map.copyOf(details);
  }

  public Reason reason() {
    return reason;
  }

  public Map<String, Object> details() {
    return details;
  }
}
