package io.kvorum.node.topology;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who holds a key under one {@link ClusterState}, by Cassandra's pending-ranges rule: a key has its
 * replicas among the members that own data now (normal and leaving; the <em>owners before</em> the
 * change) and among those that will own it once the change completes (normal and joining; the
 * <em>owners after</em>). Without a change in progress both are the same. Both rank by zone (SPEC
 * §3): a member that moves is in its old zone before and in its new one after, so a move is a
 * change like a join.
 *
 * <p>A change moves reads before it stops writing to the old owners (docs/decisions/
 * a-change-moves-reads-before-writes.md). While it is {@linkplain ClusterState.Phase#STARTED
 * started}, reads go to the owners before (the <em>read set</em>) and writes to them and to the
 * replicas the key gains, with one more confirmation for each (Cassandra's blockFor); once its
 * {@linkplain ClusterState.Phase#READS_MOVED reads moved}, reads go to the owners after and writes
 * to them and to the replicas the key loses, again with one more confirmation each. Either way
 * {@code ack} + extra confirmations among the read set and the extra replicas hold at least {@code
 * ack} of the owners before and {@code ack} of the owners after, so a quorum read of either meets
 * every acknowledged quorum write, in both phases and before and after the change. Immutable,
 * thread-safe.
 */
public final class Owners {
  private final ClusterState state;
  private final Placement before;
  private final Placement after;
  private final Placement read;
  private final Placement extra;

  /**
   * The replicas a write goes to and how many must confirm it.
   *
   * @param nodes the read set's replicas, then the extra ones of a change in progress
   * @param ack the confirmations needed: the request's {@code ack} plus one per extra replica
   */
  public record WriteSet(List<NodeId> nodes, int ack) {}

  /**
   * The acceptors of a conditional write's Paxos rounds, by Cassandra's rule for lightweight
   * transactions ({@code ReplicaPlans.forPaxos}): the key's natural replicas (its read set) and its
   * pending ones (the extra replicas writes reach: those it gains by the change in progress while
   * reads stay on the owners before, those it loses once reads moved); a round needs a majority of
   * the natural ones plus one more answer for each pending one. So any quorum of a round holds a
   * majority of the key's replicas before the change and a majority of those after it: any two
   * rounds of coordinators before, during (either phase) or after the change meet.
   *
   * @param natural the key's replicas in the read set
   * @param pending the extra replicas of the change in progress, none without one
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
    this.before = RendezvousPlacement.zoned(state.ownerZones());
    this.after = state.change().isEmpty() ? before : RendezvousPlacement.zoned(nonEmpty());
    boolean moved = state.change().map(ClusterState.Change::readsMoved).orElse(false);
    this.read = moved ? after : before;
    this.extra = moved ? before : after;
  }

  private Map<NodeId, Zone> nonEmpty() {
    Map<NodeId, Zone> targets = state.targetZones();
    return targets.isEmpty() ? state.ownerZones() : targets;
  }

  public ClusterState state() {
    return state;
  }

  /** The number of members reads go to: the largest {@code from} a request may ask. */
  public int size() {
    return read.clusterSize();
  }

  /**
   * The members reads go to, in id order: the owners before the change, or after it once its reads
   * moved.
   */
  public List<NodeId> readMembers() {
    return read == before ? state.owners() : List.copyOf(nonEmpty().keySet());
  }

  /** The first {@code from} of {@code key}'s ranking among the members reads go to. */
  public List<NodeId> readers(Key key, int from) {
    return ranked(read, key, from);
  }

  /** The first {@code from} of {@code key}'s ranking among the members after the change. */
  public List<NodeId> targets(Key key, int from) {
    return ranked(after, key, from);
  }

  private static List<NodeId> ranked(Placement placement, Key key, int from) {
    return placement.replicas(key, Math.min(from, placement.clusterSize()));
  }

  /** Whether a change is in progress, so that writes may go to more nodes than reads. */
  public boolean changing() {
    return after != before;
  }

  /** Where a write of {@code from} copies goes and how many must confirm it, for {@code ack}. */
  public WriteSet writers(Key key, int ack, int from) {
    List<NodeId> readers = readers(key, from);
    if (!changing()) {
      return new WriteSet(readers, ack);
    }
    List<NodeId> extras = missing(readers, ranked(extra, key, from));
    List<NodeId> nodes = new ArrayList<>(readers);
    nodes.addAll(extras);
    return new WriteSet(List.copyOf(nodes), ack + extras.size());
  }

  /** Whether a write of {@code key}'s {@code from} copies goes to {@code node} now. */
  public boolean replicates(NodeId node, Key key, int from) {
    return readers(key, from).contains(node)
        || changing() && ranked(extra, key, from).contains(node);
  }

  /**
   * The acceptors of {@code key}'s Paxos rounds for {@code from} copies ({@link Participants}).
   * They include more than one pending replica only in a state kvorum's one-at-a-time changes do
   * not make; the conditional write then refuses to run a round, as Cassandra does.
   */
  public Participants participants(Key key, int from) {
    List<NodeId> readers = readers(key, from);
    return new Participants(
        readers, changing() ? missing(readers, ranked(extra, key, from)) : List.of());
  }

  /**
   * The replicas {@code key}'s record gains by the change: its owners after that are not among its
   * owners before, whatever the phase.
   */
  public List<NodeId> gained(Key key, int from) {
    return changing() ? missing(ranked(before, key, from), targets(key, from)) : List.of();
  }

  /** The nodes of {@code others} that are not among {@code readers}. */
  private static List<NodeId> missing(List<NodeId> readers, List<NodeId> others) {
    List<NodeId> gained = new ArrayList<>(1);
    for (NodeId other : others) {
      if (!readers.contains(other)) {
        gained.add(other);
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
    List<NodeId> owners = ranked(before, key, from);
    List<NodeId> targets = targets(key, from);
    if (owners.containsAll(targets)) {
      return Optional.empty();
    }
    NodeId removed =
        state
            .change()
            .filter(change -> change.kind() == ClusterState.Kind.REMOVE)
            .map(ClusterState.Change::node)
            .orElse(null);
    for (NodeId owner : owners) {
      if (!targets.contains(owner) && !owner.equals(removed)) {
        return Optional.of(owner);
      }
    }
    for (NodeId owner : owners) {
      if (!owner.equals(removed)) {
        return Optional.of(owner);
      }
    }
    return Optional.empty();
  }

  /** The placement over the members reads go to, for code that ranks keys as reads do. */
  public Placement readPlacement() {
    return read;
  }

  /**
   * The placement over the owners before the change in progress, whatever its phase: what the
   * members that own data now hold.
   */
  public Placement ownerPlacement() {
    return before;
  }
}
