package io.kvorum.node.coordinator;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.KvorumException;
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
 * {@code ack} successes, or fails as soon as {@code ack} successes can no longer happen.
 * Thread-safe; replica callbacks may arrive on any thread, in any order, after the result is
 * decided.
 *
 * @param <T> what a successful replica answers
 */
final class QuorumCall<T> {
  /** One replica's successful answer. */
  record Answer<T>(NodeId node, T value) {}

  private final Quorum quorum;
  private final NodeId self;
  private final List<Answer<T>> successes = new ArrayList<>();
  private final CompletableFuture<List<Answer<T>>> result = new CompletableFuture<>();
  private final CompletableFuture<List<Answer<T>>> settled = new CompletableFuture<>();
  private int failures;
  private boolean remoteFailed;
  private Throwable localFailure;

  QuorumCall(Quorum quorum, NodeId self) {
    this.quorum = quorum;
    this.self = self;
  }

  /**
   * Calls every replica in parallel and records its answer.
   *
   * @param onFailure told of each replica that failed, after the call recorded it
   */
  static <T> QuorumCall<T> fanOut(
      Quorum quorum,
      NodeId self,
      List<NodeId> replicas,
      Function<NodeId, CompletableFuture<T>> call,
      BiConsumer<NodeId, Throwable> onFailure) {
    QuorumCall<T> quorumCall = new QuorumCall<>(quorum, self);
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
              quorumCall.succeeded(node, value);
            } else {
              quorumCall.failed(node, error);
              onFailure.accept(node, error);
            }
          });
    }
    return quorumCall;
  }

  CompletableFuture<List<Answer<T>>> result() {
    return result;
  }

  /**
   * Completes with every successful answer once every replica answered or failed, which the
   * transport's deadlines guarantee happens: for work that wants all answers, like read repair.
   */
  CompletableFuture<List<Answer<T>>> settled() {
    return settled;
  }

  Quorum quorum() {
    return quorum;
  }

  void succeeded(NodeId node, T value) {
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

  void failed(NodeId node, Throwable error) {
    RuntimeException unreachable = null;
    List<Answer<T>> all;
    synchronized (this) {
      failures++;
      if (node.equals(self)) {
        localFailure = Failures.unwrap(error);
      } else {
        remoteFailed = true;
      }
      if (quorum.from() - failures < quorum.ack()) {
        unreachable = unreachable();
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

  private List<Answer<T>> allSettled() {
    return successes.size() + failures == quorum.from() ? List.copyOf(successes) : null;
  }

  synchronized int successCount() {
    return successes.size();
  }

  /**
   * When only this node's own replica failed, its error (overloaded, disk full) says more than "not
   * enough replicas"; otherwise the quorum is what failed.
   */
  private RuntimeException unreachable() {
    if (!remoteFailed && localFailure instanceof KvorumException local) {
      return local;
    }
    return new NotEnoughReplicasException(quorum.ack(), successes.size());
  }
}
