package io.kvorum.node.server;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.antientropy.HashTrees;
import io.kvorum.node.antientropy.TreeKeepingStorageEngine;
import io.kvorum.node.auth.TokensFile;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.clock.FileCeilingStore;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.MemberState;
import io.kvorum.node.cluster.Owners;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.DurationFormat;
import io.kvorum.node.core.FailureStreak;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.gateway.GatewaySettings;
import io.kvorum.node.gateway.HttpGateway;
import io.kvorum.node.gateway.NodeStatus;
import io.kvorum.node.membership.MemberReplicaService;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.membership.MembershipStore;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.replication.CatchUp;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.LocalReplicaService;
import io.kvorum.node.replication.Replicas;
import io.kvorum.node.storage.LocalStorage;
import io.kvorum.node.storage.MemoryFirstStorageEngine;
import io.kvorum.node.storage.MeteredStorageEngine;
import io.kvorum.node.storage.PurgeSweeper;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.kvorum.node.tls.TlsEngine;
import io.kvorum.node.tls.TlsFileException;
import io.kvorum.node.tls.TlsMaterial;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import io.kvorum.node.transport.ResilientPeerTransport;
import io.kvorum.node.transport.grpc.GrpcPeerTransport;
import io.kvorum.node.transport.grpc.GrpcReplicaServer;
import io.kvorum.node.transport.grpc.GrpcTls;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.DiskSpaceMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires a node together from its configuration: the only place that names concrete classes. Starts
 * storage, clock, the inter-node transport and server, coordinator and the HTTP edge, then catches
 * up with its peers before it reports ready; {@link #shutdown()} stops them in reverse order,
 * letting requests in flight finish and pending hints go out first.
 */
public final class NodeBootstrap implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeBootstrap.class);
  private static final Duration HINT_REPLAY_INTERVAL = Duration.ofSeconds(10);
  private static final Duration BREAKER_OPEN_FOR = Duration.ofSeconds(2);
  private static final int MAX_CALLS_IN_FLIGHT_PER_PEER = 4096;
  private static final Duration MAX_HINT_DELIVERY_AT_SHUTDOWN = Duration.ofSeconds(10);
  private static final Duration CLOCK_HEARTBEAT = Duration.ofSeconds(1);

  /** How often the {@code --auth-tokens} file is checked for changes. */
  private static final Duration TOKENS_RELOAD_INTERVAL = Duration.ofSeconds(1);

  private static final Duration CLOCK_CEILING_WINDOW = Duration.ofSeconds(1);
  private static final Duration GOSSIP_INTERVAL = Duration.ofSeconds(1);

  /**
   * Test only: shifts this node's wall clock by a duration ({@code 3600s}, {@code -5s}), so that a
   * process test can run a node whose clock is wrong. Never set in production.
   */
  public static final String CLOCK_SKEW_PROPERTY = "kvorum.clock.skew";

  /** Opens the node's storage; tests substitute engines that fail or stall on purpose. */
  @FunctionalInterface
  public interface StorageFactory {
    LocalStorage open(Path directory, NodeConfig.Storage settings, ExecutorService executor);

    /** The production engine: RocksDB in {@code directory}, hints beside the records. */
    StorageFactory ROCKSDB =
        (directory, s, executor) ->
            RocksDbStorageEngine.open(
                    directory,
                    new RocksDbSettings(
                        s.syncWrites(),
                        s.blockCacheBytes(),
                        s.writeBufferBytes(),
                        s.maxDiskBytes(),
                        s.queueSize()),
                    executor)
                .asLocalStorage();
  }

  /**
   * How nodes reach each other; tests substitute an in-memory network. Both sides may run on the
   * event loops the node gives its inter-node traffic, which outlive them.
   */
  public interface Interconnect {
    /** The client side: replica calls to every peer of the topology. */
    PeerTransport connect(NodeConfig config, Clock clock, EventLoops loops, Threading threading);

    /**
     * The server side: serves {@code service} to the peers until closed.
     *
     * @throws UncheckedIOException if the inter-node port cannot be bound
     */
    AutoCloseable serve(NodeConfig config, Clock clock, ReplicaService service, EventLoops loops);

    /**
     * The client side, secured by {@code tls} when present. Interconnects that are no network (the
     * in-memory one of tests) ignore it.
     */
    default PeerTransport connect(
        NodeConfig config,
        Clock clock,
        EventLoops loops,
        Threading threading,
        Optional<TlsMaterial> tls) {
      return connect(config, clock, loops, threading);
    }

    /** The server side, secured by {@code tls} when present (ignored as above). */
    default AutoCloseable serve(
        NodeConfig config,
        Clock clock,
        ReplicaService service,
        EventLoops loops,
        Optional<TlsMaterial> tls) {
      return serve(config, clock, service, loops);
    }

    /** Production: gRPC on {@code --grpc-port}, mutual TLS if configured. */
    Interconnect GRPC =
        new Interconnect() {
          @Override
          public PeerTransport connect(
              NodeConfig config, Clock clock, EventLoops loops, Threading threading) {
            return connect(config, clock, loops, threading, Optional.empty());
          }

          @Override
          public PeerTransport connect(
              NodeConfig config,
              Clock clock,
              EventLoops loops,
              Threading threading,
              Optional<TlsMaterial> tls) {
            return new GrpcPeerTransport(
                config.topology(),
                clock,
                config.requestTimeout(),
                config.replication().catchUpTimeout(),
                maxMessageBytes(config),
                loops,
                threading.sharedLoops() && threading.channelPerLoop(),
                tls.map(GrpcTls::of));
          }

          @Override
          public AutoCloseable serve(
              NodeConfig config, Clock clock, ReplicaService service, EventLoops loops) {
            return serve(config, clock, service, loops, Optional.empty());
          }

          @Override
          public AutoCloseable serve(
              NodeConfig config,
              Clock clock,
              ReplicaService service,
              EventLoops loops,
              Optional<TlsMaterial> tls) {
            return GrpcReplicaServer.start(
                config.nodeId(),
                config.grpcPort(),
                service,
                clock,
                maxMessageBytes(config),
                loops,
                tls.map(GrpcTls::of));
          }
        };
  }

  private final NodeConfig config;
  private final StorageFactory storageFactory;
  private final Interconnect interconnect;
  private final Threading threading;
  private final LongSupplier wall;
  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean ready = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private HttpGateway gateway;
  private TokensFile tokensFile;
  private HintedHandoff handoff;
  private AntiEntropy antiEntropy;
  private Coordinator coordinator;
  private Membership membership;
  private MembershipService membershipService;
  private TreeKeepingStorageEngine treeKeeper;
  private EventLoops httpLoops;
  private EventLoops grpcLoops;
  private CompletableFuture<Void> caughtUp;
  private InetSocketAddress httpAddress;
  private Optional<TlsMaterial> tls = Optional.empty();

  private NodeBootstrap(
      NodeConfig config,
      StorageFactory storageFactory,
      Interconnect interconnect,
      Threading threading,
      LongSupplier wall) {
    this.config = config;
    this.storageFactory = storageFactory;
    this.interconnect = interconnect;
    this.threading = threading;
    this.wall = wall;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("node", config.nodeId().value());
  }

  /**
   * Starts a node and returns once it serves HTTP; it reports ready once caught up ({@link
   * #awaitReady}).
   *
   * @throws ConfigException if the environment refuses the configuration: an unwritable data
   *     directory, a data directory in use by another process, a port in use
   */
  public static NodeBootstrap start(NodeConfig config) {
    return start(config, StorageFactory.ROCKSDB, Interconnect.GRPC);
  }

  /**
   * Starts a node on the storage and interconnect given, its threads handing work on as the system
   * properties say ({@link Threading#fromSystemProperties}).
   */
  public static NodeBootstrap start(
      NodeConfig config, StorageFactory storageFactory, Interconnect interconnect) {
    return start(config, storageFactory, interconnect, Threading.fromSystemProperties());
  }

  /** Starts a node on the storage and interconnect given, its threads handing work on so. */
  public static NodeBootstrap start(
      NodeConfig config,
      StorageFactory storageFactory,
      Interconnect interconnect,
      Threading threading) {
    return start(config, storageFactory, interconnect, threading, systemWallClock());
  }

  /**
   * Starts a node as above whose wall clock (Unix milliseconds) is {@code wall}: tests give nodes
   * clocks that are wrong on purpose.
   */
  public static NodeBootstrap start(
      NodeConfig config,
      StorageFactory storageFactory,
      Interconnect interconnect,
      Threading threading,
      LongSupplier wall) {
    NodeBootstrap node = new NodeBootstrap(config, storageFactory, interconnect, threading, wall);
    try {
      node.startComponents();
      return node;
    } catch (RuntimeException e) {
      node.closeResources();
      throw e;
    }
  }

  private void startComponents() {
    tls = loadTls();
    Path dataDir = prepareDataDir(config.dataDir());
    bindProcessMetrics(dataDir);
    log.info("node {} hands work between threads so: {}", config.nodeId(), threading);

    startEventLoops();
    ExecutorService storageExecutor = storageExecutor(config.storage());
    resources.push(() -> shutdownExecutor(storageExecutor));
    MembershipStore files = new MembershipStore(dataDir);
    membership = new Membership(config.nodeId(), initialClusterState(files), Optional.of(files));
    LocalStorage local = openStorage(dataDir, storageExecutor);
    resources.push(local);
    ClusterState state = membership.state();
    HashTrees trees =
        new HashTrees(config.nodeId(), state.ids(), membership.owners().readPlacement());
    StorageEngine storage = storageEngine(local, trees);

    // Remote timestamps are followed only within the max clock offset: a node whose clock is
    // further ahead must not drag the others' versions to where their replicas refuse them.
    HybridLogicalClock clock =
        HybridLogicalClock.start(
            new FileCeilingStore(dataDir), wall, CLOCK_CEILING_WINDOW, config.maxClockOffset());
    ScheduledExecutorService timers = startTimers(clock);

    PeerTransport transport =
        new ResilientPeerTransport(
            interconnect.connect(config, clock, grpcLoops, threading, tls),
            MAX_CALLS_IN_FLIGHT_PER_PEER,
            BREAKER_OPEN_FOR,
            registry);
    resources.push(transport);
    NodeConfig.Replication replication = config.replication();
    handoff =
        new HintedHandoff(
            local.hints(),
            transport,
            clock::wallMillis,
            new HintedHandoff.Settings(
                replication.hintWindow(),
                replication.maxHintsPerPeer(),
                replication.catchUpTimeout()),
            peerIds(state),
            registry);
    antiEntropy =
        new AntiEntropy(
            trees,
            storage,
            transport,
            new AntiEntropy.Settings(
                config.repair().bytesPerSecond(),
                config.repair().interval(),
                replication.hintWindow().plus(config.requestTimeout())),
            timers,
            // Now, not the last version issued: that stands still while nothing is written.
            () -> Math.max(clock.current().physicalMillis(), clock.wallMillis()),
            registry);
    resources.push(antiEntropy);
    membershipService =
        new MembershipService(
            membership,
            files,
            storage,
            transport,
            new MembershipService.Settings(
                config.repair().bytesPerSecond(),
                GOSSIP_INTERVAL,
                config.requestTimeout().multipliedBy(2)),
            timers,
            clock::wallMillis);
    resources.push(membershipService);
    followMembership();
    serveReplicas(
        new MemberReplicaService(
            new LocalReplicaService(storage, handoff, clock, config.maxClockOffset(), antiEntropy),
            membershipService),
        clock);
    transport.onPeerReachable(handoff::welcome);
    every(timers, "hint replay", HINT_REPLAY_INTERVAL, handoff::deliverAll);
    ClockOffsets offsets =
        new ClockOffsets(
            peerIds(state),
            transport.peerClocks(),
            clock,
            System::nanoTime,
            config.maxClockOffset(),
            registry);
    transport.onPeerReachable(offsets::measure);
    membership.onChange(changed -> offsets.members(peerIds(changed)));
    every(timers, "clock offset heartbeat", CLOCK_HEARTBEAT, offsets::heartbeat);
    PurgeSweeper sweeper =
        new PurgeSweeper(
            storage,
            config.storage().tombstoneGrace(),
            clock::wallMillis,
            antiEntropy::purgeableBefore,
            registry);
    every(timers, "purge sweep", config.storage().sweepInterval(), sweeper::sweep);
    antiEntropy.start();

    coordinator =
        new Coordinator(
            membership,
            new Replicas(config.nodeId(), storage, transport),
            handoff,
            clock,
            offsets,
            config.requestTimeout(),
            timeouts(timers),
            registry,
            antiEntropy,
            config.membership().replicationFactor(),
            membershipService);
    tokensFile = clientTokens(timers);
    startGateway();
    membershipService.start();
    CompletableFuture<Void> joined = membershipService.joined();
    if (state.epoch() == 0) {
      NodeConfig.Address seed = config.membership().join().orElseThrow();
      Member self = config.topology().member(config.nodeId()).orElseThrow();
      log.info("node {} joins the cluster through {} as {}", config.nodeId(), seed, self);
      joined = membershipService.join(seed.host(), seed.port(), self);
    }
    // Ready once caught up, with every reachable peer's clock measured, and with the clock's
    // versions (resumed from the persisted ceiling after a quick restart) no further ahead of the
    // wall clock than peers accept.
    caughtUp =
        CompletableFuture.allOf(
                CatchUp.run(
                    state.topology(config.nodeId()),
                    transport,
                    replication.catchUpTimeout(),
                    handoff::welcome),
                joined,
                offsets.measureAll(),
                clockSettled(clock, timers, replication.catchUpTimeout()))
            .thenRun(
                () -> {
                  ready.set(!stopped.get());
                  log.info(
                      "node {} ready: HTTP on {}, data in {}",
                      config.nodeId(),
                      httpAddress,
                      dataDir.toAbsolutePath());
                });
  }

  /**
   * Anti-entropy follows the membership: when the members that own data change, its per-peer trees
   * are rebuilt over them (and fed by every write from then on).
   */
  private void followMembership() {
    java.util.concurrent.atomic.AtomicReference<List<NodeId>> owners =
        new java.util.concurrent.atomic.AtomicReference<>(membership.state().owners());
    membership.onChange(
        state -> {
          List<NodeId> now = state.owners();
          if (!now.equals(owners.getAndSet(now))) {
            HashTrees next =
                new HashTrees(config.nodeId(), state.ids(), new Owners(state).readPlacement());
            treeKeeper.use(next);
            antiEntropy.rebuild(next);
          }
        });
  }

  private List<NodeId> peerIds(ClusterState state) {
    return state.ids().stream().filter(id -> !id.equals(config.nodeId())).toList();
  }

  /**
   * The membership this node starts with: the one stored in its data directory if any (then {@code
   * --peers} and {@code --join} are ignored); else, with {@code --join}, none yet (epoch 0, until a
   * member admits it); else the one {@code --peers} seeds, stored at once.
   *
   * @throws ConfigException if this node left the cluster (decommissioned or removed)
   */
  private ClusterState initialClusterState(MembershipStore files) {
    if (files.decommissioned()) {
      throw new ConfigException(
          "this node was decommissioned and left the cluster; wipe its data directory ("
              + config.dataDir()
              + ") to join again");
    }
    Optional<ClusterState> stored = files.load();
    NodeId self = config.nodeId();
    if (stored.isPresent()) {
      ClusterState state = stored.get();
      if (state.node(self).isEmpty()) {
        throw new ConfigException(
            "this node is no longer a member of its cluster (removed at epoch "
                + state.epoch()
                + "); wipe its data directory ("
                + config.dataDir()
                + ") to join again");
      }
      if (config.membership().join().isPresent()
          || !state.members().containsAll(config.topology().members())
          || state.members().size() != config.topology().members().size()) {
        log.info(
            "node {} uses the membership stored in its data directory (epoch {}: {}); --peers and"
                + " --join only seed a new node and are ignored",
            self,
            state.epoch(),
            state.ids());
      }
      return state;
    }
    if (config.membership().join().isPresent()) {
      Member me = config.topology().member(self).orElseThrow();
      return new ClusterState(
          0, List.of(new ClusterState.Node(me, MemberState.NORMAL)), Optional.empty());
    }
    ClusterState seeded = ClusterState.seed(config.topology().members());
    files.save(seeded);
    return seeded;
  }

  /**
   * Completes once {@code clock}'s versions are within the max clock offset of its wall clock, at
   * the latest after {@code limit}: after a quick restart the clock resumes from its persisted
   * ceiling, up to a ceiling window ahead.
   */
  private CompletableFuture<Void> clockSettled(
      Clock clock, ScheduledExecutorService timers, Duration limit) {
    long max = config.maxClockOffset().toMillis();
    CompletableFuture<Void> settled = new CompletableFuture<>();
    ScheduledFuture<?> poll =
        timers.scheduleWithFixedDelay(
            () -> {
              if (clock.current().physicalMillis() - clock.wallMillis() <= max) {
                settled.complete(null);
              }
            },
            0,
            20,
            TimeUnit.MILLISECONDS);
    return settled
        .completeOnTimeout(null, limit.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((ok, error) -> poll.cancel(false));
  }

  /** The system's wall clock, shifted as {@value #CLOCK_SKEW_PROPERTY} says (tests only). */
  static LongSupplier systemWallClock() {
    String skew = System.getProperty(CLOCK_SKEW_PROPERTY, "").trim();
    if (skew.isEmpty()) {
      return System::currentTimeMillis;
    }
    boolean behind = skew.startsWith("-");
    long millis;
    try {
      millis = DurationFormat.parse(behind ? skew.substring(1) : skew).toMillis();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("-D" + CLOCK_SKEW_PROPERTY, skew, e.getMessage());
    }
    long shift = behind ? -millis : millis;
    log.warn(
        "TEST ONLY: this node's wall clock is shifted by {} ms (-D{})", shift, CLOCK_SKEW_PROPERTY);
    return () -> System.currentTimeMillis() + shift;
  }

  /**
   * The TLS files read and checked, reloaded from then on; a file that cannot be used ends the
   * start as invalid configuration, naming its flag and the file.
   */
  private Optional<TlsMaterial> loadTls() {
    if (config.tls().isEmpty()) {
      return Optional.empty();
    }
    NodeConfig.Tls settings = config.tls().get();
    TlsEngine engine;
    try {
      engine = TlsEngine.fromSystemProperties();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "-D" + TlsEngine.PROPERTY, System.getProperty(TlsEngine.PROPERTY), e.getMessage());
    }
    try {
      TlsMaterial material =
          TlsMaterial.load(
              new TlsMaterial.Files(
                  settings.certificate(), settings.privateKey(), settings.trustedCa()),
              settings.reloadInterval(),
              engine);
      resources.push(material);
      return Optional.of(material);
    } catch (TlsFileException e) {
      String flag =
          switch (e.role()) {
            case CERTIFICATE -> "--tls-cert";
            case PRIVATE_KEY -> "--tls-key";
            case TRUSTED_CA -> "--tls-ca";
          };
      throw new ConfigException(flag, e.file().toString(), e.reason());
    }
  }

  /**
   * The event loops of the HTTP edge and of the inter-node traffic: one group, or one each. Started
   * first and so closed last, after the servers and channels on them.
   */
  private void startEventLoops() {
    int threads = config.http().ioThreads();
    httpLoops = EventLoops.start(threading.sharedLoops() ? "kvorum-io" : "kvorum-http-io", threads);
    resources.push(httpLoops);
    grpcLoops = httpLoops;
    if (!threading.sharedLoops()) {
      grpcLoops = EventLoops.start("kvorum-grpc", threads);
      resources.push(grpcLoops);
    }
  }

  /**
   * The engine as the node uses it: metered, keeping the anti-entropy hash trees up to date, and
   * reading from memory first if so switched.
   */
  private StorageEngine storageEngine(LocalStorage local, HashTrees trees) {
    treeKeeper =
        new TreeKeepingStorageEngine(new MeteredStorageEngine(local.records(), registry), trees);
    StorageEngine tracked = treeKeeper;
    return threading.memoryFirstReads() ? new MemoryFirstStorageEngine(tracked) : tracked;
  }

  /**
   * The timer thread: renews the clock's ceiling, and runs the periodic work of hints, purges and
   * anti-entropy.
   */
  private ScheduledExecutorService startTimers(HybridLogicalClock clock) {
    ScheduledExecutorService timers =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("kvorum-timer"));
    resources.push(() -> shutdownExecutor(timers));
    every(timers, "clock ceiling renewal", Duration.ofMillis(250), clock::refreshCeiling);
    return timers;
  }

  /** Where a request's timeout is kept: on the event loop serving it, or on the timer thread. */
  private Supplier<ScheduledExecutorService> timeouts(ScheduledExecutorService timers) {
    return threading.loopTimeouts()
        ? () -> httpLoops.current().<ScheduledExecutorService>map(loop -> loop).orElse(timers)
        : () -> timers;
  }

  private void serveReplicas(ReplicaService service, Clock clock) {
    try {
      resources.push(interconnect.serve(config, clock, service, grpcLoops, tls));
    } catch (UncheckedIOException e) {
      throw new ConfigException("--grpc-port", String.valueOf(config.grpcPort()), bindFailure(e));
    }
  }

  private void startGateway() {
    NodeConfig.Http http = config.http();
    gateway =
        new HttpGateway(
            new GatewaySettings(
                http.host(),
                http.port(),
                config.limits().maxValueBytes(),
                config.limits().maxKeyBytes(),
                http.idleTimeout(),
                threading.inlineReplies()),
            config.tls().filter(NodeConfig.Tls::http).flatMap(t -> tls),
            httpLoops,
            coordinator,
            new NodeStatus(config.nodeId().value(), ready::get),
            registry,
            tokensFile == null ? null : tokensFile::tokens);
    resources.push(gateway);
    try {
      httpAddress = gateway.start();
    } catch (UncheckedIOException e) {
      throw new ConfigException("--http-port", String.valueOf(http.port()), bindFailure(e));
    }
  }

  /**
   * The client tokens of {@code --auth-tokens}, re-read every second on the timer thread (never on
   * an event loop); null without the flag.
   */
  private TokensFile clientTokens(ScheduledExecutorService timers) {
    Path file = config.authTokens();
    if (file == null) {
      return null;
    }
    TokensFile tokens;
    try {
      tokens = TokensFile.load(file);
    } catch (UncheckedIOException | IllegalArgumentException e) {
      throw new ConfigException("--auth-tokens", file.toString(), e.getMessage());
    }
    every(timers, "auth tokens reload", TOKENS_RELOAD_INTERVAL, tokens::reloadIfChanged);
    return tokens;
  }

  private LocalStorage openStorage(Path dataDir, ExecutorService executor) {
    try {
      return storageFactory.open(dataDir.resolve("db"), config.storage(), executor);
    } catch (StorageException e) {
      String reason = Failures.rootMessage(e);
      throw new ConfigException(
          "--data-dir",
          dataDir.toString(),
          reason.contains("LOCK")
              ? "in use by another running node (" + reason + ")"
              : "cannot open the database: " + reason);
    }
  }

  private ExecutorService storageExecutor(NodeConfig.Storage s) {
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            s.threads(),
            s.threads(),
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(s.queueSize()),
            daemonThreads("kvorum-storage"),
            new ThreadPoolExecutor.AbortPolicy());
    return ExecutorServiceMetrics.monitor(registry, executor, "storage", "kvorum");
  }

  /**
   * The JVM and the process, and the free and total space of the filesystem that holds the data
   * directory ({@code disk_free_bytes}, {@code disk_total_bytes}): what the disk-full alert watches
   * before writes get 507.
   */
  private void bindProcessMetrics(Path dataDir) {
    new DiskSpaceMetrics(dataDir.toAbsolutePath().toFile()).bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    // It listens to the JVM's collectors until closed, and so keeps the registry (and through its
    // gauges the node) alive after the node stopped: one node's worth per start in a test JVM.
    JvmGcMetrics gcMetrics = new JvmGcMetrics();
    gcMetrics.bindTo(registry);
    resources.push(gcMetrics);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  /**
   * Runs {@code task} every {@code period}. A task that keeps failing (the clock ceiling on a full
   * disk, every 250 ms) is logged when it starts failing and when it works again, not every time.
   */
  private static void every(
      ScheduledExecutorService timers, String name, Duration period, Runnable task) {
    FailureStreak failures = new FailureStreak();
    timers.scheduleWithFixedDelay(
        () -> {
          try {
            task.run();
            if (failures.succeeded()) {
              log.info("periodic {} works again", name);
            }
          } catch (RuntimeException e) {
            if (failures.failed(e)) {
              log.warn(
                  "periodic {} (every {} ms) failed; repeats are not logged until it works again",
                  name,
                  period.toMillis(),
                  e);
            } else {
              log.debug("periodic {} failed again: {}", name, e.toString());
            }
          }
        },
        period.toMillis(),
        period.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private static Path prepareDataDir(Path dir) {
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".write-probe", null);
      Files.delete(probe);
      return dir;
    } catch (IOException | SecurityException e) {
      throw new ConfigException(
          "--data-dir", dir.toString(), "not a writable directory (" + e + ")");
    }
  }

  private static int maxMessageBytes(NodeConfig config) {
    return config.limits().maxValueBytes() + config.limits().maxKeyBytes() + (64 << 10);
  }

  /** The address the HTTP API listens on. */
  public InetSocketAddress httpAddress() {
    return httpAddress;
  }

  public NodeConfig config() {
    return config;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
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
    return membershipService.left();
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
    if (gateway != null && !gateway.drain(config.shutdownGrace())) {
      log.warn("{} requests still in flight after the shutdown grace", gateway.inFlight());
    }
    deliverHintsBeforeStopping();
    closeResources();
    log.info("node {} stopped", config.nodeId());
  }

  private void deliverHintsBeforeStopping() {
    if (handoff == null || membership == null || membership.state().members().size() < 2) {
      return;
    }
    Duration budget =
        config.shutdownGrace().compareTo(MAX_HINT_DELIVERY_AT_SHUTDOWN) < 0
            ? config.shutdownGrace()
            : MAX_HINT_DELIVERY_AT_SHUTDOWN;
    try {
      handoff.deliverAll().get(budget.toMillis(), TimeUnit.MILLISECONDS);
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

  private void closeResources() {
    while (!resources.isEmpty()) {
      AutoCloseable resource = resources.pop();
      try {
        resource.close();
      } catch (Exception e) {
        log.warn("error while closing {}", resource, e);
      }
    }
    registry.close();
  }

  private static void shutdownExecutor(ExecutorService executor) throws InterruptedException {
    executor.shutdown();
    if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
      executor.shutdownNow();
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static String bindFailure(UncheckedIOException e) {
    String message = Failures.rootMessage(e);
    return message.toLowerCase(Locale.ROOT).contains("in use")
        ? "address already in use"
        : "cannot listen: " + message;
  }
}
