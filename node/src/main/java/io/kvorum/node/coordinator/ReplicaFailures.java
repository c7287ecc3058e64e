package io.kvorum.node.coordinator;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The failures of the replicas one request involved, and what to tell its client when too few
 * answered: the replicas' own typed failure when every one that failed, failed the same typed way
 * (all out of disk space → 507, all overloaded or shutting down → 503, all refusing the version as
 * too far ahead of their clocks → 503 naming the offset, all storage failures → 500), otherwise
 * {@link NotEnoughReplicasException} naming each failed replica and why. A replica that did not
 * answer, timed out, was refused by its circuit breaker or failed in a way nobody typed has no type
 * to share. Not thread-safe: its owner guards it.
 */
final class ReplicaFailures {
  private final Map<NodeId, Throwable> failures = new LinkedHashMap<>();

  /** Records the first failure of {@code node}. */
  void add(NodeId node, Throwable error) {
    failures.putIfAbsent(node, Failures.unwrap(error));
  }

  int count() {
    return failures.size();
  }

  boolean contains(NodeId node) {
    return failures.containsKey(node);
  }

  /**
   * What the client is told: the shared typed failure if there is one, else not enough replicas.
   *
   * @param required replicas that had to answer
   * @param answered replicas that did
   * @param pending replicas that had not answered yet
   */
  RuntimeException toClientError(int required, int answered, List<NodeId> pending) {
    Optional<KvorumException> shared = shared();
    if (shared.isPresent()) {
      return shared.get();
    }
    return notEnoughReplicas(required, answered, pending);
  }

  /** Not enough replicas, with each failure's reason, whatever the failures' types. */
  NotEnoughReplicasException notEnoughReplicas(int required, int answered, List<NodeId> pending) {
    Map<NodeId, String> reasons = new LinkedHashMap<>();
    failures.forEach((node, error) -> reasons.put(node, reason(node, error)));
    return new NotEnoughReplicasException(required, answered, reasons, pending);
  }

  private Optional<KvorumException> shared() {
    String kind = null;
    for (Throwable error : failures.values()) {
      String each = typedKind(error);
      if (each == null || (kind != null && !kind.equals(each))) {
        return Optional.empty();
      }
      kind = each;
    }
    return kind == null
        ? Optional.empty()
        : Optional.of((KvorumException) failures.values().iterator().next());
  }

  /** The typed failures that say more than "not enough replicas"; null for the others. */
  private static String typedKind(Throwable error) {
    return switch (error) {
      case StorageException e -> "storage " + e.kind();
      case OverloadedException e -> "retry later";
      case UnavailableException e -> "retry later";
      case ClockOffsetException e -> "clock";
      default -> null;
    };
  }

  /** One line on why {@code node} failed, without repeating its name. */
  private static String reason(NodeId node, Throwable error) {
    return switch (error) {
      case PeerUnavailableException e -> {
        String message = e.getMessage();
        String prefix = node + " is ";
        yield message.startsWith(prefix) ? message.substring(prefix.length()) : message;
      }
      case StorageException e when e.kind() == StorageException.Kind.NO_SPACE ->
          "disk full: " + e.getMessage();
      case KvorumException e -> e.getMessage();
      default -> Failures.rootMessage(error);
    };
  }
}
