package io.kvorum.node;

import io.kvorum.node.clock.FileCeilingStore;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.RendezvousPlacement;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.coordinator.Replicas;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.gateway.GatewaySettings;
import io.kvorum.node.gateway.HttpGateway;
import io.kvorum.node.gateway.NodeStatus;
import io.kvorum.node.replication.PeerTransport;
import io.kvorum.node.storage.MeteredStorageEngine;
import io.kvorum.node.storage.PurgeSweeper;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires a node together from its configuration: the only place that names concrete classes. Starts
 * storage, clock, coordinator and the HTTP edge; {@link #shutdown()} stops them in reverse order,
 * letting requests in flight finish first.
 */
public final class NodeBootstrap implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeBootstrap.class);

  /** Opens the node's storage; tests substitute engines that fail or stall on purpose. */
  @FunctionalInterface
  public interface StorageFactory {
    StorageEngine open(Path directory, NodeConfig.Storage settings, ExecutorService executor);

    /** The production engine: RocksDB in {@code directory}. */
    StorageFactory ROCKSDB =
        (directory, s, executor) ->
            RocksDbStorageEngine.open(
                directory,
                new RocksDbSettings(
                    s.syncWrites(), s.blockCacheBytes(), s.writeBufferBytes(), s.maxDiskBytes()),
                executor);
  }

  private final NodeConfig config;
  private final StorageFactory storageFactory;
  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean ready = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private HttpGateway gateway;
  private InetSocketAddress httpAddress;

  private NodeBootstrap(NodeConfig config, StorageFactory storageFactory) {
    this.config = config;
    this.storageFactory = storageFactory;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("node", config.nodeId().value());
  }

  /**
   * Starts a node and returns once it serves requests.
   *
   * @throws ConfigException if the environment refuses the configuration: an unwritable data
   *     directory, a data directory in use by another process, a port in use
   */
  public static NodeBootstrap start(NodeConfig config) {
    return start(config, StorageFactory.ROCKSDB);
  }

  /** Starts a node on the storage {@code storageFactory} opens. */
  public static NodeBootstrap start(NodeConfig config, StorageFactory storageFactory) {
    NodeBootstrap node = new NodeBootstrap(config, storageFactory);
    try {
      node.startComponents();
      return node;
    } catch (RuntimeException e) {
      node.closeResources();
      throw e;
    }
  }

  private void startComponents() {
    Path dataDir = prepareDataDir(config.dataDir());
    bindJvmMetrics();

    ExecutorService storageExecutor = storageExecutor(config.storage());
    resources.push(() -> shutdownExecutor(storageExecutor));
    StorageEngine storage = openStorage(dataDir, storageExecutor);
    resources.push(storage);

    HybridLogicalClock clock = HybridLogicalClock.start(new FileCeilingStore(dataDir));
    ScheduledExecutorService timers =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("kvorum-timer"));
    resources.push(() -> shutdownExecutor(timers));
    timers.scheduleWithFixedDelay(clock::refreshCeiling, 250, 250, TimeUnit.MILLISECONDS);
    PurgeSweeper sweeper =
        new PurgeSweeper(storage, config.storage().tombstoneGrace(), clock::wallMillis, registry);
    long sweepMillis = config.storage().sweepInterval().toMillis();
    timers.scheduleWithFixedDelay(sweeper::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);

    Replicas replicas = new Replicas(config.nodeId(), storage, singleNodeTransport());
    Coordinator coordinator =
        new Coordinator(
            config.topology(),
            new RendezvousPlacement(config.topology().ids()),
            replicas,
            clock,
            config.requestTimeout(),
            timers);

    NodeConfig.Http http = config.http();
    gateway =
        new HttpGateway(
            new GatewaySettings(
                http.host(),
                http.port(),
                config.limits().maxValueBytes(),
                config.limits().maxKeyBytes(),
                http.ioThreads(),
                http.idleTimeout()),
            coordinator,
            new NodeStatus(config.nodeId().value(), ready::get),
            registry);
    resources.push(gateway);
    try {
      httpAddress = gateway.start();
    } catch (UncheckedIOException e) {
      throw new ConfigException("--http-port", String.valueOf(http.port()), bindFailure(e));
    }
    ready.set(true);
    log.info(
        "node {} ready: HTTP on {}, data in {}",
        config.nodeId(),
        httpAddress,
        dataDir.toAbsolutePath());
  }

  /** The one-node cluster has no peers; placement never names another node. */
  private PeerTransport singleNodeTransport() {
    if (config.topology().size() > 1) {
      throw new ConfigException(
          "--peers",
          config.topology().members().toString(),
          "this build serves single-node clusters only; replication is not available yet");
    }
    return null;
  }

  private StorageEngine openStorage(Path dataDir, ExecutorService executor) {
    try {
      StorageEngine engine = storageFactory.open(dataDir.resolve("db"), config.storage(), executor);
      return new MeteredStorageEngine(engine, registry);
    } catch (StorageException e) {
      String reason = rootMessage(e);
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

  private void bindJvmMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
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

  /**
   * Graceful stop: reports not ready, stops taking requests, waits up to the shutdown grace for
   * those in flight, then closes everything (RocksDB flushes and closes cleanly). Idempotent.
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
    closeResources();
    log.info("node {} stopped", config.nodeId());
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
    String message = rootMessage(e);
    return message.toLowerCase(java.util.Locale.ROOT).contains("in use")
        ? "address already in use"
        : "cannot listen: " + message;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }
}
