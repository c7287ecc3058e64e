package io.kvorum.node.quorum;

import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The failures of the replicas one request involved, and what to tell its client when too few
 * answered: the replicas' own typed failure when every one that failed, failed in a way that
 * {@linkplain FailureKind#sharesAnswerWith shares one answer} (all out of disk space → 507, all
 * overloaded or shutting down → 503, all refusing the version as too far ahead of their clocks →
 * 503 naming the offset, all storage failures → 500), otherwise {@link NotEnoughReplicasException}
 * naming each failed replica and why. A replica that did not answer, timed out, was refused by its
 * circuit breaker or failed in a way nobody typed has no answer to share. Not thread-safe: its
 * owner guards it.
 */
public final class ReplicaFailures {
  private final Map<NodeId, Throwable> failures = new LinkedHashMap<>();

  /** Records the first failure of {@code node}. */
  public void add(NodeId node, Throwable error) {
    failures.putIfAbsent(node, Failures.unwrap(error));
  }

  public int count() {
    return failures.size();
  }

  /** The replicas that failed. */
  public java.util.Set<NodeId> nodes() {
    return failures.keySet();
  }

  public boolean contains(NodeId node) {
    return failures.containsKey(node);
  }

  /**
   * What the client is told: the shared typed failure if there is one, else not enough replicas.
   *
   * @param required replicas that had to answer
   * @param answered replicas that did
   * @param pending replicas that had not answered yet
   */
  public RuntimeException toClientError(int required, int answered, List<NodeId> pending) {
    Optional<KvorumException> shared = shared();
    if (shared.isPresent()) {
      return shared.get();
    }
    return notEnoughReplicas(required, answered, pending);
  }

  /** Not enough replicas, with each failure's reason, whatever the failures' types. */
  public NotEnoughReplicasException notEnoughReplicas(
      int required, int answered, List<NodeId> pending) {
    Map<NodeId, String> reasons = new LinkedHashMap<>();
    failures.forEach((node, error) -> reasons.put(node, reason(node, error)));
    return new NotEnoughReplicasException(required, answered, reasons, pending);
  }

  private Optional<KvorumException> shared() {
    if (failures.isEmpty()) {
      return Optional.empty();
    }
    Throwable first = failures.values().iterator().next();
    FailureKind kind = FailureKind.of(first);
    return failures.values().stream().allMatch(e -> kind.sharesAnswerWith(FailureKind.of(e)))
        ? Optional.of((KvorumException) first)
        : Optional.empty();
  }

  /** One line on why {@code node} failed, without repeating its name. */
  private static String reason(NodeId node, Throwable error) {
    return switch (FailureKind.of(error)) {
      case NO_ANSWER -> {
        String message = error.getMessage();
        String prefix = node + " is ";
        yield message.startsWith(prefix) ? message.substring(prefix.length()) : message;
      }
      case NO_SPACE -> "disk full: " + error.getMessage();
      case UNEXPECTED -> Failures.rootMessage(error);
      default -> error.getMessage();
    };
  }
}
