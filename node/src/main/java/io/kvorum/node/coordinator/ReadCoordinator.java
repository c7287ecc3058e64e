package io.kvorum.node.coordinator;

import io.kvorum.node.cluster.Placement;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Asks all {@code from} replicas of a key in parallel and answers with the newest record among the
 * first {@code ack} answers (last-writer-wins), tombstones and expired records included: the caller
 * decides what they read as.
 */
public final class ReadCoordinator {
  private final Placement placement;
  private final Replicas replicas;
  private final Deadline deadline;

  ReadCoordinator(Placement placement, Replicas replicas, Deadline deadline) {
    this.placement = placement;
    this.replicas = replicas;
    this.deadline = deadline;
  }

  public CompletableFuture<Optional<Record>> read(Key key, Quorum quorum) {
    QuorumCall<Optional<Record>> call = new QuorumCall<>(quorum, replicas.self());
    for (NodeId node : placement.replicas(key, quorum.from())) {
      replicas
          .read(node, key)
          .whenComplete(
              (record, error) -> {
                if (error == null) {
                  call.succeeded(node, record);
                } else {
                  call.failed(node, error);
                }
              });
    }
    return deadline.await(call).thenApply(ReadCoordinator::newest);
  }

  private static Optional<Record> newest(List<QuorumCall.Answer<Optional<Record>>> answers) {
    Record newest = null;
    for (QuorumCall.Answer<Optional<Record>> answer : answers) {
      newest = Record.newest(newest, answer.value().orElse(null));
    }
    return Optional.ofNullable(newest);
  }
}
