package io.kvorum.node.quorum;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Quorum;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The answers of the replicas one request went to. {@link #result()} completes with the first
 * {@code ack} successes, or fails as soon as {@code ack} successes can no longer happen: with the
 * replicas' own typed failure if every failed replica failed the same typed way, else with {@link
 * NotEnoughReplicasException} saying which replicas failed and why and which had not answered yet
 * ({@link ReplicaFailures}). Thread-safe; replica callbacks may arrive on any thread, in any order,
 * after the result is decided.
 *
 * @param <T> what a successful replica answers
 */
public final class QuorumCall<T> {
  /** One replica's successful answer. */
  public record Answer<T>(NodeId node, T value) {}

  private final Quorum quorum;
  private final List<NodeId> replicas;
  private final List<Answer<T>> successes = new ArrayList<>();
  private final ReplicaFailures failures = new ReplicaFailures();
  private final CompletableFuture<List<Answer<T>>> result = new CompletableFuture<>();
  private final CompletableFuture<List<Answer<T>>> settled = new CompletableFuture<>();

  /**
   * @param replicas the {@code from} replicas the request goes to
   */
  public QuorumCall(Quorum quorum, List<NodeId> replicas) {
    if (replicas.size() != quorum.from()) {
      throw new IllegalArgumentException(
          quorum + " over " + replicas.size() + " replicas: " + replicas);
    }
    this.quorum = quorum;
    this.replicas = List.copyOf(replicas);
  }

  /**
   * Calls every replica in parallel and records its answer.
   *
   * @param onFailure told of each replica that failed, after the call recorded it
   */
  public static <T> QuorumCall<T> fanOut(
      Quorum quorum,
      List<NodeId> replicas,
      Function<NodeId, CompletableFuture<T>> call,
      BiConsumer<NodeId, Throwable> onFailure) {
    QuorumCall<T> quorumCall = new QuorumCall<>(quorum, replicas);
    quorumCall.send(call, (node, value) -> {}, onFailure);
    return quorumCall;
  }

  /**
   * Calls every replica in parallel and records its answer, telling {@code onAnswer} or {@code
   * onFailure} of each after recording it: for a caller that decides more from the answers than
   * "enough answered" (a Paxos round counts promises), and keeps the call before any answer comes.
   */
  public void send(
      Function<NodeId, CompletableFuture<T>> call,
      BiConsumer<NodeId, T> onAnswer,
      BiConsumer<NodeId, Throwable> onFailure) {
    for (NodeId node : replicas) {
      CompletableFuture<T> answer;
      try {
        answer = call.apply(node);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete(
          (value, error) -> {
            if (error == null) {
              succeeded(node, value);
              onAnswer.accept(node, value);
            } else {
              failed(node, error);
              onFailure.accept(node, error);
            }
          });
    }
  }

  public CompletableFuture<List<Answer<T>>> result() {
    return result;
  }

  /**
   * Completes with every successful answer once every replica answered or failed, which the
   * transport's deadlines guarantee happens: for work that wants all answers, like read repair.
   */
  public CompletableFuture<List<Answer<T>>> settled() {
    return settled;
  }

  public Quorum quorum() {
    return quorum;
  }

  public void succeeded(NodeId node, T value) {
    List<Answer<T>> reached = null;
    List<Answer<T>> all;
    synchronized (this) {
      successes.add(new Answer<>(node, value));
      if (successes.size() == quorum.ack()) {
        reached = List.copyOf(successes);
      }
      all = allSettled();
    }
    if (reached != null) {
      result.complete(reached);
    }
    if (all != null) {
      settled.complete(all);
    }
  }

  public void failed(NodeId node, Throwable error) {
    RuntimeException unreachable = null;
    List<Answer<T>> all;
    synchronized (this) {
      failures.add(node, error);
      if (quorum.from() - failures.count() < quorum.ack()) {
        unreachable = failures.toClientError(quorum.ack(), successes.size(), pending());
      }
      all = allSettled();
    }
    if (unreachable != null) {
      result.completeExceptionally(unreachable);
    }
    if (all != null) {
      settled.complete(all);
    }
  }

  /**
   * The request gave up waiting (its deadline passed): not enough replicas, saying which failed and
   * which had not answered, whatever the failures' types.
   */
  public synchronized NotEnoughReplicasException notEnoughReplicas() {
    return failures.notEnoughReplicas(quorum.ack(), successes.size(), pending());
  }

  /**
   * The request's deadline passed: an undecided call fails with {@link #notEnoughReplicas()}; a
   * decided one stays as it is.
   */
  public void giveUp() {
    if (!result.isDone()) {
      result.completeExceptionally(notEnoughReplicas());
    }
  }

  private List<Answer<T>> allSettled() {
    return successes.size() + failures.count() == quorum.from() ? List.copyOf(successes) : null;
  }

  private List<NodeId> pending() {
    List<NodeId> pending = new ArrayList<>();
    for (NodeId node : replicas) {
      if (!failures.contains(node) && successes.stream().noneMatch(a -> a.node().equals(node))) {
        pending.add(node);
      }
    }
    return pending;
  }
}
