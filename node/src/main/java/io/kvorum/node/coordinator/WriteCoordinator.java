package io.kvorum.node.coordinator;

import io.kvorum.node.cluster.Placement;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.Replicas;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a write to all {@code from} replicas of its key in parallel and succeeds at the {@code
 * ack}-th confirmation. Replicas outside the first {@code from} of the ranking store nothing. A
 * peer replica that does not confirm (down, timed out, refused) gets a hint, whether or not the
 * request still reaches its quorum, except one that refused the version as too far ahead of its
 * clock; hints never count toward {@code ack}.
 */
public final class WriteCoordinator {
  private final Placement placement;
  private final Replicas replicas;
  private final HintedHandoff handoff;
  private final Deadline deadline;

  WriteCoordinator(
      Placement placement, Replicas replicas, HintedHandoff handoff, Deadline deadline) {
    this.placement = placement;
    this.replicas = replicas;
    this.handoff = handoff;
    this.deadline = deadline;
  }

  public CompletableFuture<Void> write(Key key, Record record, Quorum quorum) {
    QuorumCall<Void> call =
        QuorumCall.fanOut(
            quorum,
            placement.replicas(key, quorum.from()),
            node -> replicas.write(node, key, record),
            (node, error) -> {
              // A version too far ahead for the replica's clock must not reach it later either.
              if (!replicas.isSelf(node)
                  && !(Failures.unwrap(error) instanceof ClockOffsetException)) {
                handoff.hint(node, key, record);
              }
            });
    return deadline.await(call).thenApply(answers -> null);
  }
}
