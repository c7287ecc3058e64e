package io.kvorum.node.coordinator;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.replication.ReadRepairer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Asks all {@code from} replicas of a key in parallel and answers with the newest record among the
 * first {@code ack} answers (last-writer-wins), tombstones and expired records included: the caller
 * decides what they read as. Once every replica has answered, including those that answered after
 * the response, stale replicas are repaired.
 */
public final class ReadCoordinator {
  private final Membership membership;
  private final Replicas replicas;
  private final ReadRepairer repairer;
  private final RequestDeadline deadline;

  ReadCoordinator(
      Membership membership, Replicas replicas, ReadRepairer repairer, RequestDeadline deadline) {
    this.membership = membership;
    this.replicas = replicas;
    this.repairer = repairer;
    this.deadline = deadline;
  }

  public CompletableFuture<Optional<Record>> read(Key key, Quorum quorum) {
    List<NodeId> readers = membership.owners().readers(key, quorum.from());
    QuorumCall<Optional<Record>> call =
        QuorumCall.fanOut(quorum, readers, node -> replicas.read(node, key), (node, error) -> {});
    if (quorum.from() > 1) {
      call.settled().thenAccept(answers -> repairer.repair(key, readers, byNode(answers)));
    }
    return deadline.await(call).thenApply(ReadCoordinator::newest);
  }

  static Map<NodeId, Optional<Record>> byNode(List<QuorumCall.Answer<Optional<Record>>> answers) {
    Map<NodeId, Optional<Record>> byNode = new LinkedHashMap<>();
    answers.forEach(answer -> byNode.put(answer.node(), answer.value()));
    return byNode;
  }

  static Optional<Record> newest(List<QuorumCall.Answer<Optional<Record>>> answers) {
    return Record.newest(answers.stream().map(QuorumCall.Answer::value).toList());
  }
}
