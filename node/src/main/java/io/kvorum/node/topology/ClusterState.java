package io.kvorum.node.topology;

import io.kvorum.node.core.NodeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The membership of the cluster at one epoch: every member with its state, and the change in
 * progress if any. Epochs only grow; every node converges on the state of the highest epoch it has
 * seen (SPEC §8). At most one change is in progress at a time. Immutable.
 *
 * @param epoch the version of this state; a change of membership makes a new, higher one
 * @param nodes every member, sorted by id
 * @param change the change in progress; empty when none is
 * @param http the HTTP address each member advertises, for those that have said; not part of the
 *     epoch's state: merged whatever the epoch ({@link Advertised})
 */
public record ClusterState(
    long epoch, List<Node> nodes, Optional<Change> change, Map<NodeId, Advertised> http) {
  /** A member and its state. */
  public record Node(Member member, MemberState state) {
    public Node {
      Objects.requireNonNull(member, "member");
      Objects.requireNonNull(state, "state");
    }

    public NodeId id() {
      return member.id();
    }
  }

  /** What a change does. */
  public enum Kind {
    JOIN,
    DECOMMISSION,
    REMOVE,
    /** A member's zone changes: records move to the owners the new zone gives them. */
    MOVE;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Kind of(String label) {
      return valueOf(label.toUpperCase(Locale.ROOT));
    }
  }

  /**
   * How far a change has gone: where reads go, and which owners writes reach besides the readers
   * (docs/decisions/a-change-moves-reads-before-writes.md). Every change goes through both, each in
   * an epoch of its own, then completes in a third.
   */
  public enum Phase {
    /**
     * Reads go to the owners before the change; writes to them and to the replicas the change gives
     * a key ("gained"), one more confirmation each. The new owners are filled meanwhile.
     */
    STARTED,
    /**
     * The new owners are filled: reads go to them; writes to them and to the owners the change
     * takes a key from ("lost"), one more confirmation each.
     */
    READS_MOVED;

    /** The name in {@code /v0/cluster} and on the wire: {@code started}, {@code reads-moved}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * The change in progress.
   *
   * @param kind join, decommission, remove or move
   * @param node the node joining, leaving, being removed or moving
   * @param epoch the epoch that started it; the same in both its phases
   * @param startedMillis when it started, Unix milliseconds
   * @param zone for a move, the zone the node moves to; {@link Zone#NONE} for the other kinds
   * @param phase how far it has gone
   */
  public record Change(
      Kind kind, NodeId node, long epoch, long startedMillis, Zone zone, Phase phase) {
    public Change {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(phase, "phase");
    }

    /** A change just started. */
    public Change(Kind kind, NodeId node, long epoch, long startedMillis, Zone zone) {
      this(kind, node, epoch, startedMillis, zone, Phase.STARTED);
    }

    /** A change that is not a move, just started. */
    public Change(Kind kind, NodeId node, long epoch, long startedMillis) {
      this(kind, node, epoch, startedMillis, Zone.NONE);
    }

    /** Whether reads have moved to the new owners. */
    public boolean readsMoved() {
      return phase == Phase.READS_MOVED;
    }

    /**
     * The change as the HTTP API shows it, in {@code /v0/cluster} and in the problem body of a
     * refused change: {@code {"kind": "join", "node": ID, "epoch": N, "started": ISO-8601, "phase":
     * "started"}}, and for a move the zone it moves to ({@code "zone": ""} for the unnamed one).
     */
    public Map<String, Object> describe() {
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("kind", kind.label());
      view.put("node", node.value());
      if (kind == Kind.MOVE) {
        view.put("zone", zone.name());
      }
      view.put("epoch", epoch);
      view.put("started", Instant.ofEpochMilli(startedMillis).toString());
      view.put("phase", phase.label());
      return view;
    }

    @Override
    public String toString() {
      String to = kind == Kind.MOVE ? " to zone " + zone : "";
      String moved = readsMoved() ? ", reads moved" : "";
      return kind.label() + " of " + node + to + " (epoch " + epoch + moved + ")";
    }
  }

  public ClusterState {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must not be negative");
    }
    Objects.requireNonNull(change, "change");
    List<Node> sorted = new ArrayList<>(nodes);
    sorted.sort(Comparator.comparing(Node::id));
    Set<NodeId> ids = new HashSet<>();
    for (Node n : sorted) {
      if (!ids.add(n.id())) {
        throw new IllegalArgumentException("node id '" + n.id() + "' appears more than once");
      }
    }
    nodes = List.copyOf(sorted);
    Map<NodeId, Advertised> known = new TreeMap<>(http);
    known.keySet().retainAll(ids);
    http = Collections.unmodifiableMap(known);
  }

  /** A state in which no member has advertised its HTTP address yet. */
  public ClusterState(long epoch, List<Node> nodes, Optional<Change> change) {
    this(epoch, nodes, change, Map.of());
  }

  /** This state with {@code addresses} as the members' HTTP addresses. */
  public ClusterState withHttp(Map<NodeId, Advertised> addresses) {
    return new ClusterState(epoch, nodes, change, addresses);
  }

  /** The HTTP address {@code id} advertises, if it has said. */
  public Optional<String> httpAddress(NodeId id) {
    return Optional.ofNullable(http.get(id)).map(Advertised::address);
  }

  /** The state a new cluster starts with: epoch 1, every member of {@code members} normal. */
  public static ClusterState seed(List<Member> members) {
    return new ClusterState(
        1, members.stream().map(m -> new Node(m, MemberState.NORMAL)).toList(), Optional.empty());
  }

  /** Every member, whatever its state. */
  public List<Member> members() {
    return nodes.stream().map(Node::member).toList();
  }

  public List<NodeId> ids() {
    return nodes.stream().map(Node::id).toList();
  }

  public Optional<Node> node(NodeId id) {
    return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
  }

  public Optional<MemberState> state(NodeId id) {
    return node(id).map(Node::state);
  }

  /** The members that own data now (normal and leaving): reads go to them. */
  public List<NodeId> owners() {
    return nodes.stream().filter(n -> n.state() != MemberState.JOINING).map(Node::id).toList();
  }

  /**
   * The members that will own data once the change completes (normal and joining): writes go to
   * them as well as to the owners.
   */
  public List<NodeId> targets() {
    return nodes.stream().filter(n -> n.state() != MemberState.LEAVING).map(Node::id).toList();
  }

  /** The zone of each member that owns data now: the zones reads are placed by. */
  public Map<NodeId, Zone> ownerZones() {
    Map<NodeId, Zone> zones = new LinkedHashMap<>();
    for (Node n : nodes) {
      if (n.state() != MemberState.JOINING) {
        zones.put(n.id(), n.member().zone());
      }
    }
    return zones;
  }

  /**
   * The zone of each member that will own data once the change completes: the zones writes are
   * placed by as well, a moving member in the zone it moves to.
   */
  public Map<NodeId, Zone> targetZones() {
    Optional<Change> move = change.filter(c -> c.kind() == Kind.MOVE);
    Map<NodeId, Zone> zones = new LinkedHashMap<>();
    for (Node n : nodes) {
      if (n.state() != MemberState.LEAVING) {
        boolean moving = move.isPresent() && move.get().node().equals(n.id());
        zones.put(n.id(), moving ? move.get().zone() : n.member().zone());
      }
    }
    return zones;
  }

  /** Whether any member names a zone. */
  public boolean zoned() {
    return nodes.stream().anyMatch(n -> n.member().zone().named());
  }

  /** This state with {@code id} moving to {@code zone}, in a new epoch. */
  public ClusterState withMoving(NodeId id, Zone zone, long nowMillis) {
    requireNoChange();
    Node moving =
        node(id).orElseThrow(() -> new IllegalArgumentException("no member '" + id + "'"));
    if (moving.state() != MemberState.NORMAL) {
      throw new IllegalArgumentException("member '" + id + "' is " + moving.state().label());
    }
    if (moving.member().zone().equals(zone)) {
      throw new IllegalArgumentException("member '" + id + "' is already in zone " + zone);
    }
    return new ClusterState(
        epoch + 1, nodes, Optional.of(new Change(Kind.MOVE, id, epoch + 1, nowMillis, zone)), http);
  }

  /** This state with {@code member} joining, in a new epoch. */
  public ClusterState withJoining(Member member, long nowMillis) {
    requireNoChange();
    if (node(member.id()).isPresent()) {
      throw new IllegalArgumentException("node '" + member.id() + "' is already a member");
    }
    List<Node> next = new ArrayList<>(nodes);
    next.add(new Node(member, MemberState.JOINING));
    return new ClusterState(
        epoch + 1,
        next,
        Optional.of(new Change(Kind.JOIN, member.id(), epoch + 1, nowMillis)),
        http);
  }

  /** This state with {@code id} leaving, by decommission or removal, in a new epoch. */
  public ClusterState withLeaving(NodeId id, Kind kind, long nowMillis) {
    requireNoChange();
    Node leaving =
        node(id).orElseThrow(() -> new IllegalArgumentException("no member '" + id + "'"));
    if (targets().size() < 2) {
      throw new IllegalArgumentException("the last member cannot leave");
    }
    List<Node> next = new ArrayList<>();
    for (Node n : nodes) {
      next.add(n.id().equals(id) ? new Node(leaving.member(), MemberState.LEAVING) : n);
    }
    return new ClusterState(
        epoch + 1, next, Optional.of(new Change(kind, id, epoch + 1, nowMillis)), http);
  }

  /**
   * This state with the join or move in progress aborted, in a new epoch: a joining node is gone, a
   * moving one stays in its old zone, and the members own what they owned before the change. Writes
   * during the change needed {@code ack} answers from the owners besides the replicas it gains, so
   * the owners hold every acknowledged write without them. Only before reads moved: once they have,
   * a coordinator may read the new owners alone, and one that adopted the abort would write the old
   * ones alone; such a change completes instead, whatever became of its node.
   *
   * @throws IllegalStateException if no join or move is in progress, or its reads moved
   */
  public ClusterState changeAborted() {
    Change aborted =
        change
            .filter(c -> c.kind() == Kind.JOIN || c.kind() == Kind.MOVE)
            .orElseThrow(() -> new IllegalStateException("no join or move in progress"));
    if (aborted.readsMoved()) {
      throw new IllegalStateException("the reads of the " + aborted + " moved: it cannot abort");
    }
    List<Node> next =
        aborted.kind() == Kind.MOVE
            ? nodes
            : nodes.stream().filter(n -> !n.id().equals(aborted.node())).toList();
    return new ClusterState(epoch + 1, next, Optional.empty(), http);
  }

  /**
   * This state with the reads of the change in progress moved to the new owners, in a new epoch:
   * what its driver proposes once the new owners are filled.
   *
   * @throws IllegalStateException if no change is in progress, or its reads moved already
   */
  public ClusterState readsMoved() {
    Change started = change.orElseThrow(() -> new IllegalStateException("no change in progress"));
    if (started.readsMoved()) {
      throw new IllegalStateException("the reads of the " + started + " moved already");
    }
    Change moved =
        new Change(
            started.kind(),
            started.node(),
            started.epoch(),
            started.startedMillis(),
            started.zone(),
            Phase.READS_MOVED);
    return new ClusterState(epoch + 1, nodes, Optional.of(moved), http);
  }

  /**
   * This state once the change in progress completed, in a new epoch: a joining node is normal, a
   * leaving one is gone, a moving one is in its new zone. Only once its reads moved: a coordinator
   * still on the state before would read the old owners, which writes no longer reach.
   *
   * @throws IllegalStateException if no change is in progress, or its reads have not moved
   */
  public ClusterState completed() {
    Change done = change.orElseThrow(() -> new IllegalStateException("no change in progress"));
    if (!done.readsMoved()) {
      throw new IllegalStateException("the reads of the " + done + " have not moved yet");
    }
    List<Node> next = new ArrayList<>();
    for (Node n : nodes) {
      if (!n.id().equals(done.node())) {
        next.add(n);
      } else if (done.kind() == Kind.MOVE) {
        next.add(new Node(n.member().inZone(done.zone()), n.state()));
      } else if (done.kind() == Kind.JOIN) {
        next.add(new Node(n.member(), MemberState.NORMAL));
      }
    }
    return new ClusterState(epoch + 1, next, Optional.empty(), http);
  }

  private void requireNoChange() {
    if (change.isPresent()) {
      throw new IllegalStateException("a change is in progress: " + change.get());
    }
  }

  /** Topology view of every member, for code that needs addresses. */
  public Topology topology(NodeId self) {
    return new Topology(self, members());
  }
}
