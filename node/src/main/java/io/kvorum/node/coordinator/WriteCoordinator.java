package io.kvorum.node.coordinator;

import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.topology.Owners;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Sends a write to all {@code from} replicas of its key in parallel and succeeds at the {@code
 * ack}-th confirmation. Replicas outside the first {@code from} of the ranking store nothing. A
 * peer replica that does not confirm (down, timed out, refused) gets a hint, whether or not the
 * request still reaches its quorum, if its failure is {@linkplain FailureKind#hinted hinted} (not
 * one that refused the version as too far ahead of its clock); hints never count toward {@code
 * ack}.
 *
 * <p>While the membership changes, a write goes to the key's replicas among the current owners and
 * to those it will have after the change, and needs {@code ack} plus one confirmation for every
 * replica to come ({@link Owners#writers}); the record keeps the request's {@code from}.
 *
 * <p>While a peer's clock is unmeasured, this node's own copy waits for a peer to accept the
 * version ({@link LocalCopyGate}).
 */
public final class WriteCoordinator {
  private final Membership membership;
  private final Replicas replicas;
  private final HintedHandoff handoff;
  private final RequestDeadline deadline;
  private final BooleanSupplier clockUnproven;
  private final Duration gateLimit;

  /**
   * @param clockUnproven whether some peer's clock is unmeasured, so that this node cannot tell yet
   *     whether its own clock is far ahead ({@link LocalCopyGate})
   * @param gateLimit the longest this node's own copy then waits for a peer's answer
   */
  WriteCoordinator(
      Membership membership,
      Replicas replicas,
      HintedHandoff handoff,
      RequestDeadline deadline,
      BooleanSupplier clockUnproven,
      Duration gateLimit) {
    this.membership = membership;
    this.replicas = replicas;
    this.handoff = handoff;
    this.deadline = deadline;
    this.clockUnproven = clockUnproven;
    this.gateLimit = gateLimit;
  }

  public CompletableFuture<Void> write(Key key, Record record, Quorum quorum) {
    Owners.WriteSet writers = membership.owners().writers(key, quorum.ack(), quorum.from());
    LocalCopyGate gate = gate(writers.nodes());
    QuorumCall<Void> call =
        QuorumCall.fanOut(
            new Quorum(
                PlantedBug.ACK_ONE_SHORT.planted() ? Math.max(1, writers.ack() - 1) : writers.ack(),
                writers.nodes().size()),
            writers.nodes(),
            node -> {
              if (gate == null) {
                return replicas.write(node, key, record);
              }
              if (replicas.isSelf(node)) {
                return gate.opened().thenCompose(open -> replicas.write(node, key, record));
              }
              return replicas.write(node, key, record).whenComplete((ok, e) -> gate.answered(e));
            },
            (node, error) -> {
              if (!replicas.isSelf(node) && FailureKind.of(error).hinted()) {
                handoff.hint(node, key, record);
              }
            });
    return deadline.await(call).thenApply(answers -> null);
  }

  /**
   * The gate of this node's own copy while a peer's clock is unmeasured ({@link LocalCopyGate}), or
   * null when the copy goes at once: every peer measured, or this node not one of {@code nodes}.
   */
  private LocalCopyGate gate(List<NodeId> nodes) {
    if (!clockUnproven.getAsBoolean() || nodes.stream().noneMatch(replicas::isSelf)) {
      return null;
    }
    return new LocalCopyGate(nodes.size() - 1, gateLimit, deadline.scheduler());
  }
}
