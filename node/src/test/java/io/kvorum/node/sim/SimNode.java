package io.kvorum.node.sim;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.server.Interconnect;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.server.Threading;
import io.kvorum.node.tls.TlsMaterial;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;

/**
 * One simulated node: a real {@link KvorumServer} (its coordinator, replication, consensus,
 * anti-entropy, membership, clock) assembled on the simulator's parts: its threads and time ({@link
 * SimScheduling}), its peers ({@link SimNetwork}), its disk ({@link SimDisk}), its wall clock (the
 * simulation's, shifted by its own offset), no HTTP port. It lives as a series of incarnations:
 * each start builds a new server on the same disk and data directory; a crash ends the incarnation
 * at once, and every event it had scheduled is dropped unrun.
 */
final class SimNode {
  /** How a node stops. */
  enum Crash {
    /** SIGKILL: the process dies; what it wrote stays; peers see its connections reset. */
    KILL,
    /**
     * The machine loses power: unsynced writes are lost (up to a torn prefix); peers see nothing
     * until their calls time out.
     */
    POWER
  }

  /** Unix milliseconds at virtual time zero. */
  static final long EPOCH_MILLIS = 1_798_761_600_000L; // 2027-01-01T00:00:00Z

  private final NodeConfig config;
  private final SimNetwork network;
  private final SimDisk disk;
  private Incarnation incarnation;
  private KvorumServer server;
  private long wallOffsetMillis;
  private int starts;
  private long troubledUntil = -1;
  private boolean departed;

  SimNode(NodeConfig config, SimNetwork network) {
    this.config = config;
    this.network = network;
    this.disk = new SimDisk(network.scheduler().random(), this::wallMillis);
  }

  NodeId id() {
    return config.nodeId();
  }

  /** What this node's storage holds of {@code key}, written or not yet synced, up or down. */
  Optional<Record> held(Key key) {
    return disk.live().records().get(key).join();
  }

  NodeConfig config() {
    return config;
  }

  SimDisk disk() {
    return disk;
  }

  /** The running incarnation's server; empty while the node is down. */
  Optional<KvorumServer> server() {
    return Optional.ofNullable(server);
  }

  /** The running incarnation, as the owner of the events it schedules; null while down. */
  SimScheduler.Owner incarnation() {
    return incarnation;
  }

  boolean up() {
    return server != null;
  }

  /** Whether the node left the cluster (decommissioned): its process stopped for good. */
  boolean departed() {
    return departed;
  }

  /**
   * Whether the node crashed, started or was frozen at some time since {@code since} (virtual
   * nanoseconds), or is down: a request to it may have gone unanswered for that reason alone.
   */
  boolean troubledSince(long since) {
    return server == null || troubledUntil >= since;
  }

  /** How often the node was started. */
  int starts() {
    return starts;
  }

  /** This node's wall clock now, Unix milliseconds. */
  long wallMillis() {
    return EPOCH_MILLIS + network.scheduler().now() / 1_000_000 + wallOffsetMillis;
  }

  /** Steps this node's wall clock by {@code millis} (either way), as an operator or NTP might. */
  void stepClock(long millis) {
    wallOffsetMillis += millis;
  }

  long clockOffsetMillis() {
    return wallOffsetMillis;
  }

  /**
   * Starts a new incarnation on the node's disk; its start-up work runs as events from now.
   *
   * @throws IllegalStateException if it is running
   */
  void start() {
    if (server != null) {
      throw new IllegalStateException(id() + " is running");
    }
    Incarnation next = new Incarnation();
    incarnation = next;
    troubledUntil = network.scheduler().now();
    starts++;
    try {
      server =
          KvorumServer.builder(config)
              .storage(
                  (dir, settings, executor, threading) ->
                      SimStorage.open(disk, settings, executor, network.scheduler().random()))
              .interconnect(new Wires(next))
              .scheduling(new SimScheduling(network.scheduler(), next))
              .threading(Threading.AFTER)
              .wallClock(this::wallMillis)
              .withoutHttp()
              .start();
      // A decommissioned node stops once it has left, as its process does.
      server.left().thenRun(() -> network.scheduler().after(0, next, this::depart));
    } catch (RuntimeException e) {
      next.alive = false;
      incarnation = null;
      network.down(id(), true);
      if (left()) {
        // It left before it could stop by itself (killed at that moment): it exits at start, as
        // the process does (exit 2), and stays gone.
        departed = true;
        return;
      }
      throw e;
    }
  }

  /**
   * Whether the node's data directory says it left: decommissioned, or (killed after its
   * decommission completed and before it marked itself so) no longer in the cluster state it keeps.
   */
  private boolean left() {
    MembershipStore files = new MembershipStore(config.dataDir());
    return files.decommissioned()
        || files.load().map(state -> state.node(id()).isEmpty()).orElse(false);
  }

  private void depart() {
    crash(Crash.KILL);
    departed = true;
  }

  /** Ends the running incarnation at once, as {@code crash} says; nothing it scheduled runs. */
  void crash(Crash crash) {
    if (server == null) {
      return;
    }
    incarnation.alive = false;
    incarnation = null;
    server = null;
    troubledUntil = network.scheduler().now();
    network.down(id(), crash == Crash.KILL);
    if (crash == Crash.POWER) {
      disk.powerCut();
    } else {
      disk.processKilled();
    }
  }

  /**
   * Freezes the running incarnation for {@code nanos} (a stop-the-world pause, SIGSTOP): its events
   * and the messages it receives wait; its peers see silence.
   */
  void pause(long nanos) {
    if (incarnation != null) {
      incarnation.pausedUntil =
          Math.max(incarnation.pausedUntil, network.scheduler().now() + nanos);
      troubledUntil = Math.max(troubledUntil, incarnation.pausedUntil);
    }
  }

  /** Whether the running incarnation is paused now. */
  boolean paused() {
    return incarnation != null && incarnation.pausedUntil > network.scheduler().now();
  }

  /** An incarnation: its events run while it lives, and wait while it is paused. */
  static final class Incarnation implements SimScheduler.Owner {
    private boolean alive = true;
    private long pausedUntil;

    @Override
    public boolean alive() {
      return alive;
    }

    @Override
    public long pausedUntil() {
      return pausedUntil;
    }
  }

  /** The node's side of the network for one incarnation. */
  private final class Wires implements Interconnect {
    private final Incarnation owner;

    Wires(Incarnation owner) {
      this.owner = owner;
    }

    @Override
    public PeerTransport connect(
        NodeConfig config,
        Clock clock,
        EventLoops loops,
        Threading threading,
        Optional<TlsMaterial> tls,
        MeterRegistry registry) {
      SimTransport transport =
          new SimTransport(
              config.nodeId(),
              clock,
              network,
              owner,
              config.requestTimeout(),
              config.replication().catchUpTimeout());
      network.attach(config.nodeId(), transport);
      return transport;
    }

    @Override
    public AutoCloseable serve(
        NodeConfig config,
        Clock clock,
        PeerHandlers handlers,
        EventLoops loops,
        Optional<TlsMaterial> tls,
        MeterRegistry registry) {
      NodeId self = config.nodeId();
      String host = config.topology().member(self).orElseThrow().host();
      network.up(self, host, new SimNetwork.Endpoint(handlers, clock, owner));
      return () -> {
        if (owner.alive) {
          network.down(self, true);
        }
      };
    }
  }
}
