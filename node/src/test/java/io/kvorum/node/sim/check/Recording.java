package io.kvorum.node.sim.check;

import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything the simulator recorded of one run, the input of every {@link Checker}.
 *
 * <p>What the checkers assume of it: {@code ops} holds every operation a client issued, once, with
 * the answer it saw; {@code applied} holds every record any replica's storage applied, for every
 * key (nothing can be read that is not among them); {@code end} holds the end state of every key
 * some node holds or some operation names. Maps iterate in key order so that a replayed seed
 * reports the same violations in the same order.
 *
 * @param ops the clients' operations, in the order they were recorded
 * @param applied the records storage applied, in the order they were applied
 * @param accepted the proposals acceptors accepted, in the order they did; empty for a run whose
 *     membership changed, where a key's acceptors are not a fixed three ({@link ChosenStaysChosen})
 * @param end the end state of each key
 * @param settledAt when, in virtual nanoseconds, faults had healed and repair had finished: from
 *     then on every read, whatever its quorum, must see every acknowledged delete; {@link
 *     Long#MAX_VALUE} when the run never settles
 * @param endMillis the wall clock (Unix milliseconds) at the end, to tell which records have died
 *     (tombstones, expired values) and so may have been purged
 */
public record Recording(
    List<ClientOp> ops,
    List<AppliedRecord> applied,
    List<Acceptance> accepted,
    SortedMap<Key, ReplicaState> end,
    long settledAt,
    long endMillis) {
  public Recording {
    ops = List.copyOf(ops);
    applied = List.copyOf(applied);
    accepted = List.copyOf(accepted);
    end = Collections.unmodifiableSortedMap(new TreeMap<>(end));
  }

  /** A recorder to fill as the run goes. */
  public static Recorder recorder() {
    return new Recorder();
  }

  /** The operations on single keys (all but ranges) grouped by key, each in recorded order. */
  public SortedMap<Key, List<ClientOp>> opsByKey() {
    SortedMap<Key, List<ClientOp>> byKey = new TreeMap<>();
    for (ClientOp op : ops) {
      if (op.kind() != OpKind.RANGE) {
        byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
      }
    }
    return byKey;
  }

  /** The range reads, in recorded order. */
  public List<ClientOp> ranges() {
    return ops.stream().filter(op -> op.kind() == OpKind.RANGE).toList();
  }

  /** The applied records grouped by key, each in applied order. */
  public Map<Key, List<AppliedRecord>> appliedByKey() {
    Map<Key, List<AppliedRecord>> byKey = new TreeMap<>();
    for (AppliedRecord record : applied) {
      byKey.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record);
    }
    return byKey;
  }

  /** The end state of {@code key}, empty when the recording has none. */
  public Optional<ReplicaState> endOf(Key key) {
    return Optional.ofNullable(end.get(key));
  }

  /** Collects a run's recording as it goes; not thread-safe (the simulator runs on one thread). */
  public static final class Recorder {
    private final List<ClientOp> ops = new ArrayList<>();
    private final List<AppliedRecord> applied = new ArrayList<>();
    private final List<Acceptance> accepted = new ArrayList<>();
    private final SortedMap<Key, ReplicaState> end = new TreeMap<>();
    private long settledAt = Long.MAX_VALUE;
    private long endMillis;

    private Recorder() {}

    /** An operation, once its answer arrived or its client gave up on it. */
    public Recorder op(ClientOp op) {
      ops.add(op);
      return this;
    }

    /** A record {@code node}'s storage applied at virtual time {@code at}. */
    public Recorder applied(Key key, Record record, NodeId node, long at) {
      applied.add(new AppliedRecord(key, record, node, at));
      return this;
    }

    /** A proposal {@code node}'s acceptor accepted durably at virtual time {@code at}. */
    public Recorder accepted(Key key, Proposal proposal, NodeId node, long at) {
      accepted.add(new Acceptance(key, proposal, node, at));
      return this;
    }

    /** Forgets the acceptances recorded: the run's membership changed. */
    public Recorder noAcceptances() {
      accepted.clear();
      return this;
    }

    /** The end state of one key; a later call for the same key replaces an earlier one. */
    public Recorder end(ReplicaState state) {
      end.put(state.key(), state);
      return this;
    }

    /** When faults had healed and repair had finished (virtual nanoseconds). */
    public Recorder settledAt(long settledAt) {
      this.settledAt = settledAt;
      return this;
    }

    /** The wall clock at the end (Unix milliseconds). */
    public Recorder endMillis(long endMillis) {
      this.endMillis = endMillis;
      return this;
    }

    public Recording build() {
      return new Recording(ops, applied, accepted, end, settledAt, endMillis);
    }
  }
}
