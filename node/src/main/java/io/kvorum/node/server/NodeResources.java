package io.kvorum.node.server;

import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.FailureStreak;
import io.kvorum.node.core.Release;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.topology.Zone;
import io.micrometer.core.instrument.Gauge;
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
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node holds and must let go of: its metrics registry, its threads (the event loops, the
 * storage threads, the timer thread) and the stack of everything the bootstraps started, closed in
 * reverse order of start. Its periodic tasks all run on its one timer thread ({@link #every}). Used
 * by one thread while the node starts; {@link #close()} once.
 */
public final class NodeResources implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeResources.class);

  private final NodeConfig config;
  private final Threading threading;
  private final Scheduling scheduling;
  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private EventLoops httpLoops;
  private EventLoops grpcLoops;
  private ExecutorService storageThreads;
  private ScheduledExecutorService timers;
  // The work periodic tasks started on other threads and not yet finished (a purge sweep's batches
  // on the storage threads): awaited when the timer thread stops, before the storage closes.
  private final Set<CompletableFuture<?>> periodicInFlight = ConcurrentHashMap.newKeySet();

  /**
   * Resources for a node of {@code config} handing work between threads as {@code threading} says,
   * on production's threads.
   */
  public NodeResources(NodeConfig config, Threading threading) {
    this(config, threading, Scheduling.PLATFORM);
  }

  /** Resources whose threads and monotonic time come from {@code scheduling}. */
  public NodeResources(NodeConfig config, Threading threading, Scheduling scheduling) {
    this.config = config;
    this.threading = threading;
    this.scheduling = scheduling;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("node", config.nodeId().value());
    Zone zone = config.membership().zone();
    if (zone.named()) {
      // Only when named: the series of a node without --zone keep their labels.
      registry.config().commonTags("zone", zone.name());
    }
    Gauge.builder("kvorum.build.info", () -> 1)
        .description("1, labelled with the release this node runs (version)")
        .tag("version", Release.version())
        .register(registry);
  }

  /** The node's metrics, every component's and the process's. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** How the node hands work between threads. */
  public Threading threading() {
    return threading;
  }

  /** Monotonic time as the node reads it: production's, or a simulation's virtual time. */
  public LongSupplier nanoTime() {
    return scheduling::nanoTime;
  }

  /** The node's chance, uniform in [0, 1): production's, or a simulation's seeded one. */
  public DoubleSupplier random() {
    return scheduling::random;
  }

  /** Whether the node may start threads of libraries (event loops, breakers' timers). */
  public boolean platformThreads() {
    return scheduling.platformThreads();
  }

  /** Closes {@code resource} when the node closes, before everything started earlier. */
  public <T extends AutoCloseable> T closeOnStop(T resource) {
    started.push(resource);
    return resource;
  }

  /**
   * The JVM and the process, and the free and total space of the filesystem that holds the data
   * directory ({@code kvorum_disk_free_bytes}, {@code kvorum_disk_total_bytes}): what the disk-full
   * alert watches before writes get 507. Micrometer's unprefixed {@code disk_free_bytes} and {@code
   * disk_total_bytes} stay for one release, deprecated.
   */
  void bindProcessMetrics(Path dataDir) {
    new DiskSpaceMetrics(dataDir.toAbsolutePath().toFile()).bindTo(registry);
    File volume = dataDir.toAbsolutePath().toFile();
    Gauge.builder("kvorum.disk.free", volume, File::getUsableSpace)
        .description("usable space of the filesystem holding the data directory")
        .tag("path", volume.getPath())
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("kvorum.disk.total", volume, File::getTotalSpace)
        .description("total space of the filesystem holding the data directory")
        .tag("path", volume.getPath())
        .baseUnit("bytes")
        .register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    // It listens to the JVM's collectors until closed, and so keeps the registry (and through its
    // gauges the node) alive after the node stopped: one node's worth per start in a test JVM.
    closeOnStop(new JvmGcMetrics()).bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  /**
   * Starts the event loops of the HTTP edge and of the inter-node traffic: one group, or one each.
   * Started before the servers and channels on them, so closed after them.
   */
  void startEventLoops() {
    int threads = config.http().ioThreads();
    httpLoops =
        closeOnStop(
            EventLoops.start(threading.sharedLoops() ? "kvorum-io" : "kvorum-http-io", threads));
    grpcLoops =
        threading.sharedLoops() ? httpLoops : closeOnStop(EventLoops.start("kvorum-grpc", threads));
  }

  /** The event loops of the HTTP edge. */
  public EventLoops httpLoops() {
    return httpLoops;
  }

  /** The event loops of the inter-node traffic (the HTTP edge's, unless split). */
  public EventLoops grpcLoops() {
    return grpcLoops;
  }

  /**
   * The storage threads ({@code kvorum-storage-N}, {@code --storage-threads}, a bounded queue of
   * {@code --storage-queue}: a full queue refuses at once), started on first use and stopped after
   * everything started later, the storage among it.
   */
  public ExecutorService storageThreads() {
    if (storageThreads == null) {
      NodeConfig.Storage s = config.storage();
      ExecutorService executor = scheduling.storage("kvorum-storage-", s.threads(), s.queueSize());
      storageThreads = ExecutorServiceMetrics.monitor(registry, executor, "storage", "kvorum");
      ExecutorService stopping = storageThreads;
      closeOnStop(() -> stop(stopping));
    }
    return storageThreads;
  }

  /**
   * A thread of {@code name} for one component's work (a slow call that must not hold up the shared
   * threads), stopped with the node before everything started earlier: start it after what it works
   * on. A task still running when it stops is awaited up to 5 s.
   */
  public ScheduledExecutorService ownThread(String name) {
    ScheduledExecutorService thread = scheduling.thread(name);
    closeOnStop(() -> stop(thread));
    return thread;
  }

  /**
   * The timer thread ({@code kvorum-timer-1}): the periodic tasks, and the timeouts of requests
   * that do not run on an event loop. Started on first use; stopped before everything started
   * earlier (the storage), so that no task runs against a closed store: stopping it waits for the
   * work still running that {@link #everyAsync} tasks started.
   */
  public ScheduledExecutorService timers() {
    if (timers == null) {
      timers = scheduling.thread("kvorum-timer-1");
      ScheduledExecutorService stopping = timers;
      closeOnStop(
          () -> {
            stop(stopping);
            awaitPeriodicWork();
          });
    }
    return timers;
  }

  /**
   * Where a request's timeout is kept, asked on the thread that starts the request: the event loop
   * serving it (cheapest), or the timer thread (also when the node has no event loops).
   */
  public Supplier<ScheduledExecutorService> requestTimeouts() {
    ScheduledExecutorService timer = timers();
    return threading.loopTimeouts() && httpLoops != null
        ? () -> httpLoops.current().<ScheduledExecutorService>map(loop -> loop).orElse(timer)
        : () -> timer;
  }

  /**
   * Runs {@code task} on the timer thread every {@code period}, the first time one period from now.
   * A task that keeps failing (the clock ceiling on a full disk, every 250 ms) is logged when it
   * starts failing and when it works again, not every time.
   */
  public void every(String name, Duration period, Runnable task) {
    FailureStreak failures = new FailureStreak();
    timers()
        .scheduleWithFixedDelay(
            () -> {
              try {
                task.run();
                if (failures.succeeded()) {
                  log.info("periodic {} works again", name);
                }
              } catch (RuntimeException e) {
                if (failures.failed(e)) {
                  log.warn(
                      "periodic {} (every {} ms) failed; repeats are not logged until it works"
                          + " again",
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

  /**
   * Runs {@code task} as {@link #every} does, where the task starts work that ends later (on the
   * storage threads): the node's stop waits for that work to end, up to 5 s, before it closes the
   * storage under it.
   */
  public void everyAsync(
      String name, Duration period, Supplier<? extends CompletionStage<?>> task) {
    every(
        name,
        period,
        () -> {
          CompletableFuture<?> running = task.get().toCompletableFuture();
          periodicInFlight.add(running);
          running.whenComplete((result, error) -> periodicInFlight.remove(running));
        });
  }

  private void awaitPeriodicWork() {
    boolean ended =
        CompletableFuture.allOf(periodicInFlight.toArray(CompletableFuture[]::new))
            .handle((result, error) -> true)
            .completeOnTimeout(false, 5, TimeUnit.SECONDS)
            .join();
    if (!ended) {
      log.warn("stopping with periodic work still running after 5 s: {}", periodicInFlight);
    }
  }

  /** Closes everything in reverse order of start, then the metrics registry. Idempotent. */
  @Override
  public void close() {
    while (!started.isEmpty()) {
      AutoCloseable resource = started.pop();
      try {
        resource.close();
      } catch (Exception e) {
        log.warn("error while closing {}", resource, e);
      }
    }
    registry.close();
  }

  private static void stop(ExecutorService executor) throws InterruptedException {
    executor.shutdown();
    if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
      executor.shutdownNow();
    }
  }
}
