package io.kvorum.node.coordinator;

import io.kvorum.node.cluster.Owners;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.Replicas;
import java.util.concurrent.CompletableFuture;

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
 */
public final class WriteCoordinator {
  private final Membership membership;
  private final Replicas replicas;
  private final HintedHandoff handoff;
  private final Deadline deadline;

  WriteCoordinator(
      Membership membership, Replicas replicas, HintedHandoff handoff, Deadline deadline) {
    this.membership = membership;
    this.replicas = replicas;
    this.handoff = handoff;
    this.deadline = deadline;
  }

  public CompletableFuture<Void> write(Key key, Record record, Quorum quorum) {
    Owners.WriteSet writers = membership.owners().writers(key, quorum.ack(), quorum.from());
    QuorumCall<Void> call =
        QuorumCall.fanOut(
            new Quorum(writers.ack(), writers.nodes().size()),
            writers.nodes(),
            node -> replicas.write(node, key, record),
            (node, error) -> {
              if (!replicas.isSelf(node) && FailureKind.of(error).hinted()) {
                handoff.hint(node, key, record);
              }
            });
    return deadline.await(call).thenApply(answers -> null);
  }
}
