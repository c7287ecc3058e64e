package io.kvorum.node.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Fewer than {@code required} replicas answered: {@code answered} did, those in {@code failed}
 * failed (each with a one-line reason), those in {@code pending} had not answered when the request
 * gave up (at its deadline, or at once when {@code required} answers could no longer happen).
 */
public final class NotEnoughReplicasException extends KvorumException {
  private final int required;
  private final int answered;
  private final Map<NodeId, String> failed;
  private final List<NodeId> pending;

  /** Fewer than {@code required} answered, without details of the others. */
  public NotEnoughReplicasException(int required, int answered) {
    this(required, answered, Map.of(), List.of());
  }

  public NotEnoughReplicasException(
      int required, int answered, Map<NodeId, String> failed, List<NodeId> pending) {
    super(message(required, answered, failed, pending), null);
    this.required = required;
    this.answered = answered;
    this.failed = Collections.unmodifiableMap(new LinkedHashMap<>(failed));
    this.pending = List.copyOf(pending);
  }

  private static String message(
      int required, int answered, Map<NodeId, String> failed, List<NodeId> pending) {
    StringBuilder message =
        new StringBuilder("Not Enough Replicas: ")
            .append(required)
            .append(" required, ")
            .append(answered)
            .append(" answered");
    if (!failed.isEmpty()) {
      message
          .append("; failed: ")
          .append(
              failed.entrySet().stream()
                  .map(e -> e.getKey() + " (" + e.getValue() + ")")
                  .collect(Collectors.joining(", ")));
    }
    if (!pending.isEmpty()) {
      message
          .append("; no answer yet from ")
          .append(pending.stream().map(NodeId::value).collect(Collectors.joining(", ")));
    }
    return message.toString();
  }

  public int required() {
    return required;
  }

  public int answered() {
    return answered;
  }

  /** The replicas that failed, in the order they failed, each with why. */
  public Map<NodeId, String> failed() {
    return failed;
  }

  /** The replicas that had not answered yet. */
  public List<NodeId> pending() {
    return pending;
  }
}
