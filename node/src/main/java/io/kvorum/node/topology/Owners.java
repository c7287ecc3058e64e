package io.kvorum.node.topology;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who holds a key under one {@link ClusterState}, by Cassandra's pending-ranges rule: the <em>read
 * set</em> is the rendezvous ranking over the members that own data now (normal and leaving); the
 * <em>target set</em> is the ranking over the members that will own it once the change completes
 * (normal and joining). Reads go to the read set; writes go to both, and need {@code ack} plus one
 * more answer for every target not in the read set (Cassandra's blockFor), so any {@code ack}
 * answers among the read set, and any {@code ack} among the target set, meet every acknowledged
 * write. Without a change in progress both sets are the same. Both rank by zone (SPEC §3): a member
 * that moves is in its old zone in the read set and in its new one in the target set, so a move is
 * a change like a join. Immutable, thread-safe.
 */
public final class Owners {
  private final ClusterState state;
  private final Placement read;
  private final Placement target;

  /**
   * The replicas a write goes to and how many must confirm it.
   *
   * @param nodes the read set's replicas, then the target set's that are not among them
   * @param ack the confirmations needed: the request's {@code ack} plus the pending targets
   */
  public record WriteSet(List<NodeId> nodes, int ack) {}

  /**
   * The acceptors of a conditional write's Paxos rounds, by Cassandra's rule for lightweight
   * transactions ({@code ReplicaPlans.forPaxos}): the key's natural replicas (its read set) and its
   * pending ones (the replicas it gains by the change in progress); a round needs a majority of the
   * natural ones plus one more answer for each pending one. So any quorum of a round holds a
   * majority of the natural replicas, as a round before the change does, and, the pending replica
   * standing in for the one it displaces, a majority of the replicas after the change, as a round
   * after it does.
   *
   * @param natural the key's replicas among the owners now
   * @param pending the replicas the key gains by the change in progress, none without one
   */
  public record Participants(List<NodeId> natural, List<NodeId> pending) {
    public Participants {
      natural = List.copyOf(natural);
      pending = List.copyOf(pending);
    }

    /** Every acceptor a round asks: the natural replicas, then the pending ones. */
    public List<NodeId> all() {
      List<NodeId> all = new ArrayList<>(natural);
      all.addAll(pending);
      return List.copyOf(all);
    }

    /** How many acceptors must promise, then accept: a majority of the natural ones + pending. */
    public int required() {
      return natural.size() / 2 + 1 + pending.size();
    }
  }

  public Owners(ClusterState state) {
    this.state = state;
    this.read = RendezvousPlacement.zoned(state.ownerZones());
    this.target = state.change().isEmpty() ? read : RendezvousPlacement.zoned(nonEmpty());
  }

  private Map<NodeId, Zone> nonEmpty() {
    Map<NodeId, Zone> targets = state.targetZones();
    return targets.isEmpty() ? state.ownerZones() : targets;
  }

  public ClusterState state() {
    return state;
  }

  /** The number of members that own data now: the largest {@code from} a request may ask. */
  public int size() {
    return read.clusterSize();
  }

  /** The first {@code from} of {@code key}'s ranking among the owners. */
  public List<NodeId> readers(Key key, int from) {
    return read.replicas(key, Math.min(from, read.clusterSize()));
  }

  /** The first {@code from} of {@code key}'s ranking among the members after the change. */
  public List<NodeId> targets(Key key, int from) {
    return target.replicas(key, Math.min(from, target.clusterSize()));
  }

  /** Whether a change is in progress, so that writes may go to more nodes than reads. */
  public boolean changing() {
    return target != read;
  }

  /** Where a write of {@code from} copies goes and how many must confirm it, for {@code ack}. */
  public WriteSet writers(Key key, int ack, int from) {
    List<NodeId> readers = readers(key, from);
    if (!changing()) {
      return new WriteSet(readers, ack);
    }
    List<NodeId> gained = gained(readers, targets(key, from));
    List<NodeId> nodes = new ArrayList<>(readers);
    nodes.addAll(gained);
    return new WriteSet(List.copyOf(nodes), ack + gained.size());
  }

  /**
   * The acceptors of {@code key}'s Paxos rounds for {@code from} copies ({@link Participants}).
   * They include more than one pending replica only in a state kvorum's one-at-a-time changes do
   * not make; the conditional write then refuses to run a round, as Cassandra does.
   */
  public Participants participants(Key key, int from) {
    List<NodeId> readers = readers(key, from);
    return new Participants(readers, changing() ? gained(readers, targets(key, from)) : List.of());
  }

  /** The replicas {@code key}'s record gains by the change: its targets that are not owners now. */
  public List<NodeId> gained(Key key, int from) {
    return changing() ? gained(readers(key, from), targets(key, from)) : List.of();
  }

  private static List<NodeId> gained(List<NodeId> readers, List<NodeId> targets) {
    List<NodeId> gained = new ArrayList<>(1);
    for (NodeId target : targets) {
      if (!readers.contains(target)) {
        gained.add(target);
      }
    }
    return gained;
  }

  /**
   * The one owner that streams {@code key}'s record to the replicas it {@link #gained gains}, or
   * empty when it gains none: the owner the change displaces, as Cassandra streams a range from the
   * replica it moves away from, so that the new replica set holds what the old one did; the first
   * owner in the key's ranking that stays when the displaced one is the node being removed (or when
   * none is displaced: a record with more copies than there were owners).
   */
  public Optional<NodeId> handoffSource(Key key, int from) {
    if (!changing()) {
      return Optional.empty();
    }
    List<NodeId> readers = readers(key, from);
    List<NodeId> targets = targets(key, from);
    if (readers.containsAll(targets)) {
      return Optional.empty();
    }
    NodeId removed =
        state
            .change()
            .filter(change -> change.kind() == ClusterState.Kind.REMOVE)
            .map(ClusterState.Change::node)
            .orElse(null);
    for (NodeId reader : readers) {
      if (!targets.contains(reader) && !reader.equals(removed)) {
        return Optional.of(reader);
      }
    }
    for (NodeId reader : readers) {
      if (!reader.equals(removed)) {
        return Optional.of(reader);
      }
    }
    return Optional.empty();
  }

  /** The placement over the owners, for code that ranks keys as reads do. */
  public Placement readPlacement() {
    return read;
  }
}
