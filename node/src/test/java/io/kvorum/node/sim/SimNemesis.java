package io.kvorum.node.sim;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Zone;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

/**
 * The faults of a simulated run, drawn from the seed while the clients run: crashes (SIGKILL and
 * power cuts) and restarts, pauses, partitions (a node cut off, the cluster split, a bridge,
 * one-way cuts, a flapping link), lossy and slow links, clock steps, full disks. Each fault heals
 * after a while; {@link #healAll} heals every one at once. What it did is kept as a log of lines,
 * printed with a failing seed.
 */
final class SimNemesis {
  /** The kinds of fault a run may use. */
  enum Fault {
    KILL,
    POWER_CUT,
    PAUSE,
    PARTITION,
    ONE_WAY,
    BRIDGE,
    FLAPPING,
    LOSSY_NETWORK,
    CLOCK_STEP,
    DISK_FULL,
    /** A new node joins (at most six members). */
    JOIN,
    /** A member is decommissioned (at least four members). */
    DECOMMISSION,
    /**
     * Every node of one zone crashes at once (killed, or its power cut), and starts again a while
     * later; one zone at a time. For clusters whose nodes name zones ({@link Scenario#ZONES}).
     */
    ZONE_LOSS
  }

  /** Every fault but {@link Fault#ZONE_LOSS}, which needs zones. */
  static final Set<Fault> ALL = EnumSet.complementOf(EnumSet.of(Fault.ZONE_LOSS));

  private final SimCluster cluster;
  private final Random random;
  private final Set<Fault> faults;
  private final long meanGapNanos;
  private final long powerCutSpacingNanos;
  private final List<String> log = new ArrayList<>();
  private final List<Long> powerCuts = new ArrayList<>();
  private final List<Long> clockSteps = new ArrayList<>();
  // The nodes asked to leave, and each new node not admitted yet with the node it asks.
  private final Set<NodeId> leaving = new HashSet<>();
  private final Map<SimNode, SimNode> joiningVia = new LinkedHashMap<>();
  private boolean running;
  private boolean membershipChanged;
  private IntPredicate strikes = number -> true;
  private int drawn;
  private String numbering = "";

  /**
   * @param meanGapNanos the mean time between two faults
   * @param powerCutSpacingNanos the least time between two power cuts (of any nodes): longer than
   *     the sync interval, so that no write acknowledged by a quorum is lost by all its replicas at
   *     once, which the durability model allows
   */
  SimNemesis(SimCluster cluster, Set<Fault> faults, long meanGapNanos, long powerCutSpacingNanos) {
    this.cluster = cluster;
    this.random = cluster.scheduler().random();
    this.faults = faults;
    this.meanGapNanos = meanGapNanos;
    this.powerCutSpacingNanos = powerCutSpacingNanos;
  }

  /**
   * Strikes only the faults whose numbers (in the order drawn, from 0) {@code strikes} accepts; the
   * others are drawn and left out, so that a shrunk schedule keeps the faults' times.
   */
  SimNemesis striking(IntPredicate strikes) {
    this.strikes = strikes;
    return this;
  }

  /** How many faults were drawn, struck or left out. */
  int drawn() {
    return drawn;
  }

  void start() {
    running = true;
    if (!faults.isEmpty()) {
      schedule();
    }
  }

  void stop() {
    running = false;
  }

  /** What happened, a line per fault and heal. */
  List<String> log() {
    return log;
  }

  /** Whether a join or decommission was asked for: a key's replicas may have changed. */
  boolean membershipChanged() {
    return membershipChanged;
  }

  /** When the power cuts happened (virtual nanoseconds). */
  List<Long> powerCuts() {
    return powerCuts;
  }

  /** When a node's clock was stepped, virtual nanoseconds. */
  List<Long> clockSteps() {
    return clockSteps;
  }

  private void schedule() {
    long gap = (long) (meanGapNanos * (0.2 + 1.6 * random.nextDouble()));
    cluster
        .scheduler()
        .after(
            gap,
            null,
            () -> {
              if (running) {
                strike();
                schedule();
              }
            });
  }

  private void strike() {
    List<Fault> kinds = new ArrayList<>(faults);
    Fault fault = kinds.get(random.nextInt(kinds.size()));
    SimNode node = cluster.node(1 + random.nextInt(cluster.size()));
    int number = drawn++;
    if (!strikes.test(number)) {
      return;
    }
    numbering = "#" + number + " ";
    try {
      strike(fault, node);
    } finally {
      numbering = "";
    }
  }

  private void strike(Fault fault, SimNode node) {
    switch (fault) {
      case KILL, POWER_CUT -> crash(node, fault);
      case PAUSE -> {
        long nanos = millis(50, 3_000);
        note("pause " + node.id() + " for " + nanos / 1_000_000 + " ms");
        node.pause(nanos);
      }
      case PARTITION -> {
        List<NodeId> side = randomSide();
        note("partition " + side + " from the rest");
        for (SimNode a : cluster.nodes()) {
          for (SimNode b : cluster.nodes()) {
            if (side.contains(a.id()) && !side.contains(b.id())) {
              cluster.network().cut(a.id(), b.id());
              cluster.network().cut(b.id(), a.id());
            }
          }
        }
        healLater(millis(200, 5_000));
      }
      case ONE_WAY -> {
        SimNode other = otherThan(node);
        note("cut " + node.id() + " -> " + other.id() + " one way");
        cluster.network().cut(node.id(), other.id());
        healLater(millis(200, 5_000));
      }
      case BRIDGE -> bridge(node);
      case FLAPPING -> flap(node.id(), otherThan(node).id(), 2 + random.nextInt(10));
      case LOSSY_NETWORK -> {
        SimNetwork.Faults lossy =
            new SimNetwork.Faults(
                50_000,
                2_000_000,
                0.05,
                300_000_000L,
                random.nextDouble() * 0.1,
                random.nextDouble() * 0.1);
        note("lossy network " + lossy);
        cluster.network().faults(lossy);
        cluster
            .scheduler()
            .after(
                millis(500, 5_000),
                null,
                () -> {
                  note("network clean again");
                  cluster.network().faults(SimNetwork.Faults.NONE);
                });
      }
      case CLOCK_STEP -> {
        long step = random.nextInt(10) == 0 ? millis(-3_000, 3_000) : millis(-300, 300);
        step /= 1_000_000;
        note("step " + node.id() + "'s clock by " + step + " ms");
        node.stepClock(step);
        clockSteps.add(cluster.scheduler().now());
      }
      case ZONE_LOSS -> loseZone(node.config().membership().zone());
      case JOIN -> join(node);
      case DECOMMISSION -> decommission(node);
      case DISK_FULL -> {
        if (node.disk().full()) {
          return;
        }
        note("fill " + node.id() + "'s disk");
        node.disk().full(true);
        cluster
            .scheduler()
            .after(
                millis(200, 4_000),
                null,
                () -> {
                  note("free " + node.id() + "'s disk");
                  node.disk().full(false);
                });
      }
    }
  }

  /**
   * A new node joins through {@code via}, as an operator starts one with {@code --join} of a
   * member: not through a node that is not a member admitted and staying (a joining node not
   * admitted yet, one asked to leave or that left and has not stopped yet), which would refuse it
   * and then leave it asking a node that is gone (MEMBERSHIP seeds 1001204, 1001507, 1003057).
   */
  private void join(SimNode via) {
    if (cluster.size() < 6 && !changing() && via.up() && staying(via)) {
      note("join a node through " + via.id());
      membershipChanged = true;
      SimNode joined = cluster.join(via);
      joiningVia.put(joined, via);
      note("joined " + joined.id());
    }
  }

  private boolean staying(SimNode node) {
    return !leaving.contains(node.id())
        && node.server()
            .map(s -> s.admin().clusterState())
            .filter(state -> state.epoch() > 0)
            .flatMap(state -> state.state(node.id()))
            .filter(state -> state == MemberState.NORMAL)
            .isPresent();
  }

  /**
   * {@code node} is decommissioned, unless a new node still asks to be admitted through it: it
   * would leave that one asking a node that is gone.
   */
  private void decommission(SimNode node) {
    joiningVia.keySet().removeIf(SimNemesis::admitted);
    if (cluster.size() > 3 && !changing() && node.up() && !joiningVia.containsValue(node)) {
      note("decommission " + node.id());
      membershipChanged = true;
      leaving.add(node.id());
      cluster
          .request(node, Duration.ofSeconds(10), s -> s.admin().decommission())
          .whenComplete(
              (change, error) -> {
                if (error != null) {
                  leaving.remove(node.id());
                }
                note(
                    error == null
                        ? "decommission of " + node.id() + " started: " + change
                        : "decommission of " + node.id() + " refused: " + error);
              });
    }
  }

  private static boolean admitted(SimNode joiner) {
    return joiner.departed()
        || joiner.server().map(s -> s.admin().clusterState().epoch() > 0).orElse(false);
  }

  private void crash(SimNode node, Fault fault) {
    if (!node.up()) {
      return;
    }
    long now = cluster.scheduler().now();
    boolean power =
        fault == Fault.POWER_CUT
            && (powerCuts.isEmpty() || now - powerCuts.getLast() >= powerCutSpacingNanos);
    if (power) {
      powerCuts.add(now);
    }
    SimNode.Crash crash = power ? SimNode.Crash.POWER : SimNode.Crash.KILL;
    note(crash + " " + node.id());
    node.crash(crash);
    cluster.scheduler().after(millis(100, 5_000), null, () -> restart(node));
  }

  /**
   * Every node of {@code zone} crashes at once, as a zone loses power or is cut off whole, unless a
   * node is down already (one zone at a time: each key has one replica a zone, so a quorum of the
   * others stays up); they start again together a while later.
   */
  private void loseZone(Zone zone) {
    if (cluster.nodes().stream().anyMatch(n -> !n.up())) {
      return;
    }
    List<SimNode> lost =
        cluster.nodes().stream().filter(n -> n.config().membership().zone().equals(zone)).toList();
    long now = cluster.scheduler().now();
    boolean power =
        random.nextBoolean()
            && (powerCuts.isEmpty() || now - powerCuts.getLast() >= powerCutSpacingNanos);
    if (power) {
      powerCuts.add(now);
    }
    SimNode.Crash crash = power ? SimNode.Crash.POWER : SimNode.Crash.KILL;
    note(crash + " zone " + zone + ": " + lost.stream().map(SimNode::id).toList());
    lost.forEach(n -> n.crash(crash));
    cluster.scheduler().after(millis(300, 5_000), null, () -> lost.forEach(this::restart));
  }

  private void restart(SimNode node) {
    if (!node.up()) {
      note("start " + node.id());
      node.start();
    }
  }

  /** Two sides that cannot reach each other, and one node that reaches both. */
  private void bridge(SimNode bridge) {
    List<NodeId> others =
        cluster.nodes().stream().map(SimNode::id).filter(id -> !id.equals(bridge.id())).toList();
    List<NodeId> left = others.subList(0, others.size() / 2);
    note("bridge " + bridge.id() + " between " + left + " and the rest");
    for (NodeId a : others) {
      for (NodeId b : others) {
        if (left.contains(a) != left.contains(b)) {
          cluster.network().cut(a, b);
        }
      }
    }
    healLater(millis(200, 5_000));
  }

  private void flap(NodeId a, NodeId b, int times) {
    if (times == 0 || !running) {
      return;
    }
    boolean cut = cluster.network().isCut(a, b);
    if (cut) {
      cluster.network().heal(a, b);
      cluster.network().heal(b, a);
    } else {
      cluster.network().cut(a, b);
      cluster.network().cut(b, a);
    }
    note((cut ? "reconnect " : "disconnect ") + a + " and " + b + " (flapping)");
    cluster.scheduler().after(millis(20, 600), null, () -> flap(a, b, times - 1));
  }

  private void healLater(long nanos) {
    cluster
        .scheduler()
        .after(
            nanos,
            null,
            () -> {
              note("heal the network");
              cluster.network().heal();
            });
  }

  /** Whether a membership change is in progress, as any member that is up sees it. */
  private boolean changing() {
    return cluster.nodes().stream()
        .flatMap(n -> n.server().stream())
        .anyMatch(s -> s.admin().clusterState().change().isPresent());
  }

  /** Heals everything: links, losses, disks; restarts what is down. Pauses end by themselves. */
  void healAll() {
    note("heal everything");
    cluster.network().heal();
    cluster.network().faults(SimNetwork.Faults.NONE);
    for (SimNode node : cluster.nodes()) {
      node.disk().full(false);
      node.stepClock(-node.clockOffsetMillis()); // NTP sets every clock right
      if (!node.up()) {
        node.start();
      }
    }
  }

  private List<NodeId> randomSide() {
    List<NodeId> ids = cluster.nodes().stream().map(SimNode::id).collect(Collectors.toList());
    int size = 1 + random.nextInt(Math.max(1, ids.size() / 2));
    List<NodeId> side = new ArrayList<>();
    while (side.size() < size) {
      side.add(ids.remove(random.nextInt(ids.size())));
    }
    return side;
  }

  private SimNode otherThan(SimNode node) {
    SimNode other;
    do {
      other = cluster.node(1 + random.nextInt(cluster.size()));
    } while (other == node);
    return other;
  }

  private long millis(long min, long max) {
    return (min + random.nextLong(max - min + 1)) * 1_000_000L;
  }

  private void note(String what) {
    log.add(String.format("%10.3f s  %s%s", cluster.scheduler().now() / 1e9, numbering, what));
  }
}
