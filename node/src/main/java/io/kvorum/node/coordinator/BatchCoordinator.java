package io.kvorum.node.coordinator;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.replica.ReplicaBatch;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.ReadRepairer;
import io.kvorum.node.topology.Owners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Runs the reads and writes of one client batch as the {@link ReadCoordinator} and the {@link
 * WriteCoordinator} run one each (the same replicas, quorums, hints and read repair, each item
 * decided on its own), but sends each replica one message for all the items it holds ({@link
 * ReplicaBatch}), this node's own served from its storage. A replica that does not know batches (a
 * release before them answers the message as invalid) gets the items one by one, as do reads it
 * left out of its answer to keep it small. One timer bounds every item by the request timeout.
 */
final class BatchCoordinator {
  /** One operation of a batch, ready to send. */
  sealed interface Op {
    Key key();

    /** A quorum read of {@code key}. */
    record Read(Key key) implements Op {}

    /** {@code record} written to {@code key}'s replicas. */
    record Write(Key key, Record record) implements Op {}

    /** An item refused before it was sent (a write while this node's clock may not version). */
    record Refused(Key key, RuntimeException failure) implements Op {}
  }

  private final Membership membership;
  private final Replicas replicas;
  private final HintedHandoff handoff;
  private final ReadRepairer repairer;
  private final RequestDeadline deadline;
  private final BooleanSupplier clockUnproven;
  private final Duration gateLimit;

  BatchCoordinator(
      Membership membership,
      Replicas replicas,
      HintedHandoff handoff,
      ReadRepairer repairer,
      RequestDeadline deadline,
      BooleanSupplier clockUnproven,
      Duration gateLimit) {
    this.membership = membership;
    this.replicas = replicas;
    this.handoff = handoff;
    this.repairer = repairer;
    this.deadline = deadline;
    this.clockUnproven = clockUnproven;
    this.gateLimit = gateLimit;
  }

  /**
   * Runs {@code ops}: one future per op, in their order, completing with the newest record a read
   * found (tombstones and expired records included) or the record a write stored, or failing with
   * what that op alone would have failed with.
   */
  List<CompletableFuture<Optional<Record>>> run(List<Op> ops, Quorum quorum) {
    Owners owners = membership.owners();
    Map<NodeId, Parcel> parcels = new LinkedHashMap<>();
    List<QuorumCall<?>> calls = new ArrayList<>(ops.size());
    List<CompletableFuture<Optional<Record>>> results = new ArrayList<>(ops.size());
    for (Op op : ops) {
      switch (op) {
        case Op.Read read -> {
          List<NodeId> readers = owners.readers(read.key(), quorum.from());
          QuorumCall<Optional<Record>> call = new QuorumCall<>(quorum, readers);
          readers.forEach(node -> parcel(parcels, node).reads.add(new PendingRead(read, call)));
          if (quorum.from() > 1) {
            call.settled()
                .thenAccept(
                    answers ->
                        repairer.repair(read.key(), readers, ReadCoordinator.byNode(answers)));
          }
          calls.add(call);
          results.add(call.result().thenApply(ReadCoordinator::newest));
        }
        case Op.Write write -> {
          Owners.WriteSet writers = owners.writers(write.key(), quorum.ack(), quorum.from());
          QuorumCall<Void> call =
              new QuorumCall<>(new Quorum(writers.ack(), writers.nodes().size()), writers.nodes());
          Entry entry = new Entry(write.key(), write.record());
          writers
              .nodes()
              .forEach(n -> parcel(parcels, n).writes.add(new PendingWrite(entry, call)));
          calls.add(call);
          results.add(call.result().thenApply(done -> Optional.of(write.record())));
        }
        case Op.Refused refused -> results.add(CompletableFuture.failedFuture(refused.failure()));
      }
    }
    send(parcels);
    deadline.bound(calls);
    return results;
  }

  private Parcel parcel(Map<NodeId, Parcel> parcels, NodeId node) {
    return parcels.computeIfAbsent(node, n -> new Parcel());
  }

  /**
   * Sends every replica its parcel. While a peer's clock is unmeasured, this node's own writes wait
   * for a peer to accept the versions, as a single write's copy does ({@link LocalCopyGate}).
   */
  private void send(Map<NodeId, Parcel> parcels) {
    Parcel own = parcels.get(replicas.self());
    long peersWriting =
        parcels.entrySet().stream()
            .filter(e -> !replicas.isSelf(e.getKey()) && !e.getValue().writes.isEmpty())
            .count();
    LocalCopyGate gate =
        own == null || own.writes.isEmpty() || !clockUnproven.getAsBoolean()
            ? null
            : new LocalCopyGate((int) peersWriting, gateLimit, deadline.scheduler());
    parcels.forEach(
        (node, parcel) -> {
          if (gate != null && replicas.isSelf(node)) {
            send(node, new Parcel(parcel.reads, List.of()), null);
            Parcel writes = new Parcel(List.of(), parcel.writes);
            gate.opened()
                .whenComplete(
                    (open, refused) -> {
                      if (refused == null) {
                        send(node, writes, null);
                      } else {
                        writes.fail(node, refused);
                      }
                    });
          } else {
            send(node, parcel, gate);
          }
        });
  }

  private void send(NodeId node, Parcel parcel, LocalCopyGate gate) {
    if (parcel.reads.isEmpty() && parcel.writes.isEmpty()) {
      return;
    }
    ReplicaBatch batch = parcel.toBatch();
    CompletableFuture<ReplicaBatch.Answer> answer;
    try {
      answer = replicas.batch(node, batch);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (reply, error) -> {
          if (gate != null && !parcel.writes.isEmpty()) {
            gate.answered(error != null ? error : reply.firstWriteFailure());
          }
          if (error == null && !parcel.fits(reply)) {
            error = new IllegalStateException(node + " answered a batch with other items");
          }
          if (error == null) {
            deliver(node, parcel, reply);
          } else if (!replicas.isSelf(node)
              && FailureKind.of(error) == FailureKind.INVALID_REQUEST) {
            // A release before batches: its items one by one.
            parcel.reads.forEach(read -> readSingly(node, read));
            parcel.writes.forEach(write -> writeSingly(node, write));
          } else {
            parcel.fail(node, error);
          }
        });
  }

  private void deliver(NodeId node, Parcel parcel, ReplicaBatch.Answer reply) {
    for (int i = 0; i < parcel.reads.size(); i++) {
      PendingRead read = parcel.reads.get(i);
      ReplicaBatch.Outcome<Optional<Record>> outcome = reply.reads().get(i);
      if (outcome.omitted()) {
        readSingly(node, read);
      } else if (outcome.failure() != null) {
        read.call.failed(node, outcome.failure());
      } else {
        read.call.succeeded(node, outcome.value());
      }
    }
    for (int i = 0; i < parcel.writes.size(); i++) {
      RuntimeException failure = reply.writes().get(i).failure();
      PendingWrite write = parcel.writes.get(i);
      if (failure == null) {
        write.call.succeeded(node, null);
      } else {
        failWrite(node, write, failure);
      }
    }
  }

  private void readSingly(NodeId node, PendingRead read) {
    replicas
        .read(node, read.op.key())
        .whenComplete(
            (record, error) -> {
              if (error == null) {
                read.call.succeeded(node, record);
              } else {
                read.call.failed(node, error);
              }
            });
  }

  private void writeSingly(NodeId node, PendingWrite write) {
    replicas
        .write(node, write.entry.key(), write.entry.record())
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                write.call.succeeded(node, null);
              } else {
                failWrite(node, write, error);
              }
            });
  }

  /** A replica did not take a write: its call learns it, and a hint is kept as for one write. */
  private void failWrite(NodeId node, PendingWrite write, Throwable error) {
    write.call.failed(node, error);
    if (!replicas.isSelf(node) && FailureKind.of(error).hinted()) {
      handoff.hint(node, write.entry.key(), write.entry.record());
    }
  }

  private record PendingRead(Op.Read op, QuorumCall<Optional<Record>> call) {}

  private record PendingWrite(Entry entry, QuorumCall<Void> call) {}

  /** The items one replica holds, in the order its message lists them. */
  private final class Parcel {
    final List<PendingRead> reads;
    final List<PendingWrite> writes;

    Parcel() {
      this(new ArrayList<>(), new ArrayList<>());
    }

    Parcel(List<PendingRead> reads, List<PendingWrite> writes) {
      this.reads = reads;
      this.writes = writes;
    }

    ReplicaBatch toBatch() {
      return new ReplicaBatch(
          reads.stream().map(r -> r.op.key()).toList(),
          writes.stream().map(PendingWrite::entry).toList());
    }

    boolean fits(ReplicaBatch.Answer answer) {
      return answer.reads().size() == reads.size() && answer.writes().size() == writes.size();
    }

    /** The whole message failed: every item in it failed so at this replica. */
    void fail(NodeId node, Throwable error) {
      reads.forEach(read -> read.call.failed(node, error));
      writes.forEach(write -> failWrite(node, write, error));
    }
  }
}
