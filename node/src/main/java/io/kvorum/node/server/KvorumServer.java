package io.kvorum.node.server;

import io.kvorum.node.auth.TokensFile;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.changes.ChangeRetention;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.config.TestIntervals;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.Release;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.replication.CatchUp;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.storage.Snapshots;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Zone;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node: assembled by its bootstraps in start order (security, storage, cluster, replication, the
 * edges), then its background work started, then ready once caught up with its peers. {@link
 * #shutdown()} reports not ready, lets requests in flight finish and pending hints go out, then
 * closes everything in reverse order of start.
 */
public final class KvorumServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KvorumServer.class);

  private final NodeConfig config;
  private final NodeResources resources;
  private final AtomicBoolean ready = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private NodeCluster cluster;
  private NodeReplication replication;
  private NodeEdge edge;
  private CompletableFuture<Void> caughtUp;

  private KvorumServer(NodeConfig config, Threading threading, Scheduling scheduling) {
    this.config = config;
    this.resources = new NodeResources(config, threading, scheduling);
  }

  /**
   * Starts a node in production: RocksDB, gRPC, threads and wall clock as the system properties
   * say, and Netty's leak detector off unless asked for ({@link
   * EventLoops#detectLeaksOnlyIfAsked}). Returns once it serves HTTP; it reports ready once caught
   * up ({@link #awaitReady}).
   *
   * @throws ConfigException if the environment refuses the configuration: an unwritable data
   *     directory, a data directory in use by another process, a port in use
   */
  public static KvorumServer start(NodeConfig config) {
    EventLoops.detectLeaksOnlyIfAsked();
    return builder(config).start();
  }

  /** A node to start with some of its parts chosen: tests substitute storage, network and clock. */
  public static Builder builder(NodeConfig config) {
    return new Builder(config);
  }

  /** Chooses the parts a node is started with; each defaults to production's. */
  public static final class Builder {
    private final NodeConfig config;
    private StorageFactory storage = StorageFactory.ROCKSDB;
    private Interconnect interconnect = Interconnect.GRPC;
    private Threading threading;
    private LongSupplier wallClock;
    private Scheduling scheduling = Scheduling.PLATFORM;
    private boolean http = true;

    private Builder(NodeConfig config) {
      this.config = config;
    }

    /** How the node opens its storage (default: RocksDB). */
    public Builder storage(StorageFactory factory) {
      this.storage = factory;
      return this;
    }

    /** How the node reaches its peers (default: gRPC). */
    public Builder interconnect(Interconnect network) {
      this.interconnect = network;
      return this;
    }

    /** How the node hands work between threads (default: as the system properties say). */
    public Builder threading(Threading choice) {
      this.threading = choice;
      return this;
    }

    /** The node's wall clock, Unix milliseconds (default: the system's, {@link WallClock}). */
    public Builder wallClock(LongSupplier wall) {
      this.wallClock = wall;
      return this;
    }

    /**
     * The threads and monotonic time the node runs on (default: production's platform threads); a
     * simulation's runs the whole node on its one thread in virtual time.
     */
    public Builder scheduling(Scheduling choice) {
      this.scheduling = choice;
      return this;
    }

    /**
     * A node that serves no HTTP port: its clients are in the same process and call its {@link
     * KvorumServer#coordinator()} and {@link KvorumServer#admin()} (a simulation's clients).
     */
    public Builder withoutHttp() {
      this.http = false;
      return this;
    }

    /** Starts the node as {@link KvorumServer#start(NodeConfig)} does, on the parts chosen. */
    public KvorumServer start() {
      KvorumServer node =
          new KvorumServer(
              config, threading != null ? threading : Threading.fromSystemProperties(), scheduling);
      try {
        node.assemble(storage, interconnect, wallClock, http);
        return node;
      } catch (RuntimeException e) {
        node.resources.close();
        throw e;
      }
    }
  }

  private void assemble(
      StorageFactory factory, Interconnect interconnect, LongSupplier wall, boolean http) {
    NodeSecurity security = SecurityBootstrap.load(config, resources);
    NodeStorage storage =
        StorageBootstrap.open(
            config, factory, wall != null ? wall : WallClock.fromSystemProperties(), resources);
    if (resources.platformThreads()) {
      // The JVM's and the process's: not a simulated node's, which shares them with many.
      resources.bindProcessMetrics(storage.dataDir());
    }
    log.info("node {} runs kvorum {}", config.nodeId(), Release.version());
    log.info("node {} hands work between threads so: {}", config.nodeId(), resources.threading());
    TestIntervals.inUse(config)
        .ifPresent(
            set -> log.warn("node {} runs with TEST ONLY intervals: {}", config.nodeId(), set));
    if (resources.platformThreads()) {
      resources.startEventLoops();
    }
    cluster = ClusterBootstrap.connect(config, storage, security, interconnect, resources);
    replication = ReplicationBootstrap.build(config, storage, cluster, resources);
    EdgeBootstrap.servePeers(config, storage, security, replication, interconnect, resources);
    startBackgroundWork(storage, security);
    edge =
        http
            ? EdgeBootstrap.serveClients(
                config, storage, security, cluster, replication, resources, ready::get)
            : EdgeBootstrap.inProcess(config, storage, cluster, replication, resources);
    caughtUp = readiness(storage);
  }

  /**
   * Everything the node does by itself: what a peer's return triggers, and every periodic task (all
   * on the timer thread).
   */
  private void startBackgroundWork(NodeStorage storage, NodeSecurity security) {
    HybridLogicalClock clock = storage.clock();
    HintedHandoff handoff = replication.handoff();
    ClockOffsets offsets = cluster.offsets();
    // A peer that comes back gets the hints held for it, and its clock measured.
    cluster.transport().onPeerReachable(handoff::welcome);
    cluster.transport().onPeerReachable(offsets::measure);
    resources.every(
        "clock ceiling renewal", HybridLogicalClock.CEILING_RENEWAL, clock::refreshCeiling);
    security
        .clientTokens()
        .ifPresent(
            tokens ->
                resources.every(
                    "auth tokens reload", TokensFile.RELOAD_INTERVAL, tokens::reloadIfChanged));
    resources.everyAsync(
        "hint replay",
        config.replication().replayInterval().orElse(HintedHandoff.REPLAY_INTERVAL),
        handoff::deliverAll);
    resources.every("clock offset heartbeat", ClockOffsets.HEARTBEAT, offsets::heartbeat);
    resources.everyAsync(
        "purge sweep", config.storage().sweepInterval(), replication.sweeper()::sweep);
    resources.everyAsync(
        "paxos state sweep", config.storage().sweepInterval(), replication.paxosSweeper()::sweep);
    resources.every(
        "snapshots in the disk limit", Snapshots.LIMIT_INTERVAL, storage.snapshots()::keepInLimit);
    ChangeRetention changes =
        new ChangeRetention(
            replication.storage().changes(), config.storage().changeRetention(), clock::wallMillis);
    resources.everyAsync("change log purge", ChangeRetention.INTERVAL, changes::purge);
    // Its rounds every --repair-interval, once its trees are built by one scan of storage.
    replication.antiEntropy().start();
  }

  /**
   * Starts gossip and, for a new node, its join; ready once caught up, in its zone, with every
   * reachable peer's clock measured, and with the clock's versions (resumed from the persisted
   * ceiling after a quick restart) no further ahead of the wall clock than peers accept.
   */
  private CompletableFuture<Void> readiness(NodeStorage storage) {
    // Gossip every second, and the membership change in progress driven to its end.
    replication.changes().start();
    CompletableFuture<Void> joined = replication.changes().joined();
    Zone zone = config.membership().zone();
    if (storage.clusterState().epoch() == 0) {
      NodeConfig.Address seed = config.membership().join().orElseThrow();
      Member self = config.topology().member(config.nodeId()).orElseThrow().inZone(zone);
      log.info("node {} joins the cluster through {} as {}", config.nodeId(), seed, self);
      joined = replication.changes().join(seed.host(), seed.port(), self);
    }
    Duration catchUpTimeout = config.replication().catchUpTimeout();
    return CompletableFuture.allOf(
            CatchUp.run(
                storage.clusterState().topology(config.nodeId()),
                cluster.transport(),
                catchUpTimeout,
                replication.handoff()::welcome,
                resources.timers()),
            joined,
            // A node started in another zone than the cluster has it in moves first (SPEC §3).
            replication.changes().settleZone(zone),
            cluster.offsets().measureAll(),
            storage.clock().settled(resources.timers(), catchUpTimeout))
        .thenRun(
            () -> {
              ready.set(!stopped.get());
              log.info(
                  "node {} ready: HTTP on {}, data in {}",
                  config.nodeId(),
                  edge.httpAddress(),
                  storage.dataDir().toAbsolutePath());
            });
  }

  /** The address the HTTP API listens on; null for a node {@link Builder#withoutHttp}. */
  public InetSocketAddress httpAddress() {
    return edge.httpAddress();
  }

  /** The node's coordinator of client requests, as its HTTP edge calls it. */
  public Coordinator coordinator() {
    return edge.coordinator();
  }

  /** What operators ask of the cluster through this node, as its HTTP edge calls it. */
  public ClusterAdmin admin() {
    return edge.admin();
  }

  /** The change feeds this node serves (SPEC §12), as its HTTP edge opens them. */
  public ChangeFeeds changeFeeds() {
    return edge.feeds();
  }

  public NodeConfig config() {
    return config;
  }

  public PrometheusMeterRegistry registry() {
    return resources.registry();
  }

  /** Whether the node has caught up and serves requests. */
  public boolean ready() {
    return ready.get();
  }

  /**
   * Completes once this node has left the cluster by decommission (its records handed over); the
   * process then stops and exits 0.
   */
  public CompletableFuture<Void> left() {
    return replication.changes().left();
  }

  /** Waits until the node has caught up with its peers (bounded by the catch-up timeout). */
  public void awaitReady() {
    caughtUp.join();
  }

  /**
   * Graceful stop: reports not ready, stops taking requests, waits up to the shutdown grace for
   * those in flight, delivers pending hints for a bounded time, then closes everything (RocksDB
   * flushes and closes cleanly). Idempotent.
   */
  public void shutdown() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    log.info("node {} shutting down", config.nodeId());
    ready.set(false);
    if (edge != null && edge.gateway() != null && !edge.gateway().drain(config.shutdownGrace())) {
      log.warn("{} requests still in flight after the shutdown grace", edge.gateway().inFlight());
    }
    deliverHintsBeforeStopping();
    resources.close();
    log.info("node {} stopped", config.nodeId());
  }

  private void deliverHintsBeforeStopping() {
    if (replication == null || cluster.membership().state().members().size() < 2) {
      return;
    }
    Duration grace = config.shutdownGrace();
    Duration budget =
        grace.compareTo(HintedHandoff.MAX_DELIVERY_AT_SHUTDOWN) < 0
            ? grace
            : HintedHandoff.MAX_DELIVERY_AT_SHUTDOWN;
    try {
      replication.handoff().deliverAll().get(budget.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("stopping with hints still pending: delivery took longer than {}", budget);
    } catch (ExecutionException e) {
      log.warn("stopping with hints still pending: {}", e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    shutdown();
  }
}
