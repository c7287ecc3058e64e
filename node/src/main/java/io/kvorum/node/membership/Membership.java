package io.kvorum.node.membership;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Advertised;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.ClusterStateCodec;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Topology;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's copy of the cluster state (SPEC §8): the highest epoch it has seen, stored durably
 * before anyone here acts on it, and the epoch each peer last reported (its acknowledgement of a
 * change). Two different states of the same epoch (two changes started at once on two nodes) are
 * settled the same way on every node: the one whose encoding sorts last wins, the other change is
 * dropped; two different states of the same epoch without a change (nodes seeded with different
 * {@code --peers}) are a misconfiguration: each node keeps its own and logs it. Thread-safe;
 * listeners run on the thread that adopted the state, after it is stored.
 */
public final class Membership {
  private static final Logger log = LoggerFactory.getLogger(Membership.class);

  private final NodeId self;
  private final Optional<MembershipStore> store;
  private final List<Consumer<ClusterState>> listeners = new CopyOnWriteArrayList<>();
  private final Map<NodeId, Long> seen = new ConcurrentHashMap<>();
  private final java.util.Set<Long> conflictLogged = ConcurrentHashMap.newKeySet();
  private volatile Owners owners;
  // The current state without addresses: the form the tie-break between states of one epoch uses.
  private volatile byte[] encoded;
  // This node's own HTTP address, once the server has said it.
  private Optional<Advertised> own = Optional.empty();

  /**
   * @param store where adopted states are kept; empty for a membership in memory only (tests)
   */
  public Membership(NodeId self, ClusterState initial, Optional<MembershipStore> store) {
    this.self = self;
    this.store = store;
    this.owners = new Owners(initial);
    this.encoded = ClusterStateCodec.encodeEpochState(initial);
  }

  /** A membership that never changes and is kept nowhere: a static topology (tests). */
  public static Membership fixed(Topology topology) {
    return new Membership(topology.self(), ClusterState.seed(topology.members()), Optional.empty());
  }

  public NodeId self() {
    return self;
  }

  public ClusterState state() {
    return owners.state();
  }

  /** Placement under the current state. */
  public Owners owners() {
    return owners;
  }

  /**
   * Exports the state's epoch ({@code kvorum_membership_epoch}) and when the change in progress
   * started ({@code kvorum_membership_change_started_timestamp_seconds}, NaN while none is): what
   * the alert on a membership change that is stuck watches.
   */
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("kvorum.membership.epoch", () -> state().epoch())
        .description("the epoch of the cluster state this node holds")
        .register(registry);
    Gauge.builder(
            "kvorum.membership.change.started.timestamp",
            () -> state().change().map(c -> c.startedMillis() / 1e3).orElse(Double.NaN))
        .description("when the membership change in progress started, Unix seconds; NaN if none")
        .baseUnit("seconds")
        .register(registry);
  }

  /** Calls {@code listener} with every state adopted from now on. */
  public void onChange(Consumer<ClusterState> listener) {
    listeners.add(listener);
  }

  /**
   * Adopts {@code other} if it is newer than the current state (a higher epoch, or the same epoch
   * and the winner of the tie-break), and the members' HTTP addresses it knows newer ones of
   * whatever its epoch (they are merged, {@link Advertised}).
   *
   * @return whether the state of {@code other}'s epoch was adopted (not only addresses)
   */
  public boolean adopt(ClusterState other) {
    byte[] bytes = ClusterStateCodec.encodeEpochState(other);
    ClusterState next;
    boolean newer;
    synchronized (this) {
      ClusterState current = state();
      newer = newer(current, other, bytes);
      Map<NodeId, Advertised> http = Advertised.merge(current.http(), other.http());
      own.ifPresent(mine -> http.merge(self, mine, Advertised::newer));
      next = (newer ? other : current).withHttp(http);
      if (!newer && next.equals(current)) {
        return false;
      }
      install(next, newer ? bytes : encoded);
    }
    if (newer) {
      log.info(
          "cluster state epoch {} adopted: {}{}",
          other.epoch(),
          describe(other),
          other.change().map(c -> "; change in progress: " + c).orElse(""));
    }
    ClusterState adopted = next;
    listeners.forEach(listener -> listener.accept(adopted));
    return newer;
  }

  /**
   * This node's HTTP address, as it advertises it from now on: kept in every state it adopts, so
   * that its peers learn it by gossip. An address that differs from the one the state holds for
   * this node is stamped later than that one, whatever the wall clock says.
   */
  public void advertise(String address, long nowMillis) {
    synchronized (this) {
      Advertised held = state().http().get(self);
      if (held != null && held.address().equals(address)) {
        own = Optional.of(held);
        return;
      }
      long stamp = held == null ? nowMillis : Math.max(nowMillis, held.stamp() + 1);
      own = Optional.of(new Advertised(address, stamp));
    }
    adopt(state());
  }

  /**
   * Whether {@code other}, encoded without addresses as {@code bytes}, wins over {@code current}.
   */
  private boolean newer(ClusterState current, ClusterState other, byte[] bytes) {
    if (other.epoch() != current.epoch()) {
      return other.epoch() > current.epoch();
    }
    if (Arrays.compare(bytes, encoded) <= 0) {
      return false;
    }
    if (current.change().isEmpty() && other.change().isEmpty()) {
      // Two seeds of different --peers, not two changes started at once: neither may win.
      if (conflictLogged.add(other.epoch())) {
        log.error(
            "a peer holds a different membership at epoch {} ({}) than this node ({}): the"
                + " nodes were seeded with different --peers; keeping this node's",
            other.epoch(),
            other.ids(),
            current.ids());
      }
      return false;
    }
    return true;
  }

  /**
   * Makes the next state from the current one and adopts it.
   *
   * @throws RuntimeException whatever {@code next} throws (e.g. a change is in progress)
   */
  public ClusterState propose(UnaryOperator<ClusterState> next) {
    ClusterState proposed;
    synchronized (this) {
      proposed = next.apply(state());
    }
    if (!adopt(proposed)) {
      throw new IllegalStateException("the cluster state moved on while proposing a change");
    }
    return proposed;
  }

  private void install(ClusterState state, byte[] bytes) {
    store.ifPresent(s -> s.save(state));
    encoded = bytes;
    owners = new Owners(state);
  }

  /** {@code peer} reported holding {@code epoch}: it acts on that state or a newer one. */
  public void seen(NodeId peer, long epoch) {
    seen.merge(peer, epoch, Math::max);
  }

  /** The highest epoch {@code peer} has reported, 0 if none. */
  public long seenEpoch(NodeId peer) {
    return peer.equals(self) ? state().epoch() : seen.getOrDefault(peer, 0L);
  }

  private static String describe(ClusterState state) {
    StringBuilder text = new StringBuilder();
    for (ClusterState.Node n : state.nodes()) {
      text.append(text.isEmpty() ? "" : ", ").append(n.id()).append(' ').append(n.state().label());
    }
    return text.toString();
  }
}
