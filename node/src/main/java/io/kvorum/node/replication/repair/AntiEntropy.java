package io.kvorum.node.replication.repair;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anti-entropy (SPEC §7): builds the {@link HashTrees} by one scan at start, then runs rounds over
 * every peer, one exchange at a time ({@link PeerExchange}): the first an interval after start,
 * each next one an interval after the previous one started (at once if it took longer, or when
 * {@link #repairNow} asks). Everything it sends goes through one {@link RepairRate}.
 *
 * <p>It also answers the peers' exchanges ({@link #hashes}, {@link #segments}) and says up to when
 * dead records may be purged ({@link #purgeableBefore}): a record is purged only once every replica
 * holds it, which a round that completed with every peer shows.
 */
public final class AntiEntropy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AntiEntropy.class);
  static final KeyRange EVERYTHING = KeyRange.from(Key.of(new byte[] {0}));
  private static final int REBUILD_BATCH = 1024;

  /**
   * @param bytesPerSecond what this node sends for repair at most
   * @param interval how long after one round started the next one starts
   * @param arrivalMargin how long after a record died every copy of it has reached some replica:
   *     the hint window plus a request timeout (a write in flight)
   */
  public record Settings(long bytesPerSecond, Duration interval, Duration arrivalMargin) {}

  /**
   * What the last exchange with a peer did.
   *
   * @param lastCompletedMillis when the last successful exchange finished, Unix ms; 0 for never
   * @param recordsRepaired records that exchange moved one way or the other
   * @param recordsRepairedTotal records the exchanges with the peer moved since this node started
   * @param lastError why the latest exchange failed, or null if it did not
   */
  public record PeerRepair(
      long lastCompletedMillis, long recordsRepaired, long recordsRepairedTotal, String lastError) {
    static final PeerRepair NEVER = new PeerRepair(0, 0, 0, null);
  }

  private volatile HashTrees trees;
  private final StorageEngine storage;
  private final PeerTransport transport;
  private volatile List<NodeId> peers;
  private final Settings settings;
  private final ScheduledExecutorService timer;
  private final LongSupplier nowMillis;
  private final RepairRate rate;
  private final RepairMetrics metrics;
  private final Map<NodeId, PeerRepair> status = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> built = new CompletableFuture<>();
  private boolean running;
  private boolean requested;
  private boolean closed;
  private ScheduledFuture<?> next;
  private volatile long lastFullRoundStart = -1;
  private volatile long previousFullRoundStart = -1;

  /**
   * @param storage the node's storage, through the {@link TreeKeepingStorageEngine} that feeds
   *     {@code trees}
   * @param nowMillis the node's time for rounds, comparable with record versions (its clock)
   */
  public AntiEntropy(
      HashTrees trees,
      StorageEngine storage,
      PeerTransport transport,
      Settings settings,
      ScheduledExecutorService timer,
      LongSupplier nowMillis,
      MeterRegistry registry) {
    this.trees = trees;
    this.storage = storage;
    this.transport = transport;
    this.peers = trees.nodes().stream().filter(n -> !n.equals(trees.self())).toList();
    this.settings = settings;
    this.timer = timer;
    this.nowMillis = nowMillis;
    this.rate = new RepairRate(settings.bytesPerSecond(), timer);
    this.metrics = new RepairMetrics(registry);
    for (NodeId peer : peers) {
      status.put(peer, PeerRepair.NEVER);
      Gauge.builder(
              "kvorum.repair.peer.last.completed", () -> peer(peer).lastCompletedMillis() / 1e3)
          .description("when the last successful exchange with the peer finished, Unix seconds")
          .tag("peer", peer.value())
          .baseUnit("seconds")
          .register(registry);
      Gauge.builder("kvorum.repair.peer.last.records.repaired", () -> peer(peer).recordsRepaired())
          .description("records the last successful exchange with the peer moved")
          .tag("peer", peer.value())
          .register(registry);
      FunctionCounter.builder(
              "kvorum.repair.peer.records.repaired.total",
              this,
              repair -> repair.peer(peer).recordsRepairedTotal())
          .description("records the exchanges with the peer moved since the node started")
          .tag("peer", peer.value())
          .register(registry);
    }
  }

  /** Builds the trees by one scan of storage, then starts the rounds; completes once built. */
  public CompletableFuture<Void> start() {
    return build(trees, built);
  }

  /**
   * The membership changed: exchanges from now on use {@code next}, trees over the new owners,
   * built by one scan of storage (peers' exchanges are refused until then, as at start). Purging
   * waits again for two full rounds with the new peers.
   */
  public void rebuild(HashTrees next) {
    synchronized (this) {
      trees = next;
      peers = next.nodes().stream().filter(n -> !n.equals(next.self())).toList();
      lastFullRoundStart = -1;
      previousFullRoundStart = -1;
    }
    for (NodeId peer : peers) {
      status.putIfAbsent(peer, PeerRepair.NEVER);
    }
    log.info("membership changed: rebuilding the hash trees for peers {}", peers);
    build(next, new CompletableFuture<>());
  }

  private CompletableFuture<Void> build(HashTrees trees, CompletableFuture<Void> built) {
    long startedAt = System.nanoTime();
    Batches.forEach(
            storage.scan(EVERYTHING),
            REBUILD_BATCH,
            4L << 20,
            batch -> {
              batch.forEach(entry -> trees.offer(entry.key(), entry.record()));
              return CompletableFuture.completedFuture(null);
            })
        .whenComplete(
            (done, error) -> {
              if (error != null) {
                log.error("could not build the hash trees; anti-entropy stays off", error);
                built.completeExceptionally(error);
                return;
              }
              trees.markComplete();
              log.info(
                  "hash trees built over {} records in {} ms",
                  trees.records(),
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt));
              built.complete(null);
              boolean asked;
              boolean roundRunning;
              synchronized (this) {
                asked = requested;
                roundRunning = running;
              }
              // A round running schedules the next one when it ends.
              if (!roundRunning) {
                schedule(asked ? 0 : settings.interval().toMillis());
              }
            });
    return built;
  }

  /** Starts a full round now, or right after the one running. */
  public synchronized void repairNow() {
    if (closed || peers.isEmpty()) {
      return;
    }
    if (running) {
      requested = true;
    } else if (trees.complete()) {
      schedule(0);
    } else {
      requested = true;
    }
  }

  private synchronized void schedule(long delayMillis) {
    if (closed || peers.isEmpty()) {
      return;
    }
    if (next != null) {
      next.cancel(false);
    }
    next = timer.schedule(this::runRound, delayMillis, TimeUnit.MILLISECONDS);
  }

  private void runRound() {
    synchronized (this) {
      if (running || closed) {
        return;
      }
      running = true;
      requested = false;
    }
    long startedAt = nowMillis.getAsLong();
    long startedNanos = System.nanoTime();
    exchangeFrom(0, true)
        .whenComplete(
            (complete, error) -> {
              Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
              boolean full = error == null && complete;
              metrics.round(full ? "complete" : "incomplete", took);
              if (full) {
                previousFullRoundStart = lastFullRoundStart;
                lastFullRoundStart = startedAt;
              }
              long delay;
              synchronized (this) {
                running = false;
                delay =
                    requested ? 0 : Math.max(0, settings.interval().toMillis() - took.toMillis());
              }
              schedule(delay);
            });
  }

  /** Exchanges with the peers from {@code index} on, one at a time; true if all succeeded. */
  private CompletableFuture<Boolean> exchangeFrom(int index, boolean allSoFar) {
    if (index == peers.size() || closed) {
      return CompletableFuture.completedFuture(allSoFar && !closed);
    }
    HashTrees trees = this.trees;
    if (!trees.complete()) {
      // Rebuilt for a new membership and not filled yet: this round is not a full one.
      return CompletableFuture.completedFuture(false);
    }
    List<NodeId> peers = this.peers;
    if (index >= peers.size()) {
      return CompletableFuture.completedFuture(allSoFar && !closed);
    }
    NodeId peer = peers.get(index);
    long startedNanos = System.nanoTime();
    CompletableFuture<PeerExchange.Outcome> exchange;
    try {
      exchange = new PeerExchange(peer, trees, storage, transport, rate, metrics).run();
    } catch (RuntimeException e) {
      exchange = CompletableFuture.failedFuture(e);
    }
    return exchange
        .handle(
            (outcome, error) -> {
              Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
              metrics.exchange(peer.value(), error == null ? "ok" : "error", took);
              if (error != null) {
                String reason = Failures.rootMessage(error);
                log.debug("anti-entropy with {} failed: {}", peer, reason);
                PeerRepair last = peer(peer);
                status.put(
                    peer,
                    new PeerRepair(
                        last.lastCompletedMillis(),
                        last.recordsRepaired(),
                        last.recordsRepairedTotal(),
                        reason));
                return false;
              }
              if (outcome.repaired() > 0) {
                log.info(
                    "anti-entropy with {}: {} of {} segments differed, {} records received, {} sent",
                    peer,
                    outcome.segmentsDiffering(),
                    outcome.segmentsCompared(),
                    outcome.received(),
                    outcome.sent());
              }
              status.put(
                  peer,
                  new PeerRepair(
                      nowMillis.getAsLong(),
                      outcome.repaired(),
                      peer(peer).recordsRepairedTotal() + outcome.repaired(),
                      null));
              return true;
            })
        .thenCompose(ok -> exchangeFrom(index + 1, allSoFar && ok));
  }

  /** How the exchanges with {@code peer} went. */
  public PeerRepair peer(NodeId peer) {
    return status.getOrDefault(peer, PeerRepair.NEVER);
  }

  /**
   * The bound below which dead records (tombstones, expired values) may be purged, whatever the
   * grace period: records that died at least the arrival margin before the start of the
   * second-to-last round that completed with every peer. The round before the last one brought
   * every such record to this node (some replica held it by then); the last one, which started
   * after that, brought it to every peer. {@link Long#MAX_VALUE} without peers, and {@link
   * Long#MIN_VALUE} (purge nothing) until two rounds completed.
   */
  public long purgeableBefore() {
    if (peers.isEmpty()) {
      return Long.MAX_VALUE;
    }
    long confirmedFrom = previousFullRoundStart;
    return confirmedFrom < 0 ? Long.MIN_VALUE : confirmedFrom - settings.arrivalMargin().toMillis();
  }

  // ---- serving the peers' exchanges -----------------------------------------------------------

  /** The hashes of this node's tree shared with {@code peer}, as {@link HashTrees#hashes}. */
  public CompletableFuture<long[]> hashes(NodeId peer, int level, int[] positions) {
    HashTrees trees = this.trees;
    if (!trees.complete()) {
      return CompletableFuture.failedFuture(
          new UnavailableException("its hash trees are still being built"));
    }
    return CompletableFuture.completedFuture(trees.hashes(peer, level, positions));
  }

  /**
   * This node's records of {@code segments} that {@code peer} should hold too, released at the
   * repair rate.
   */
  public ScanCursor segments(NodeId peer, int[] segments) {
    HashTrees trees = this.trees;
    BitSet wanted = new BitSet(HashTrees.LEAVES);
    for (int segment : segments) {
      if (segment < 0 || segment >= HashTrees.LEAVES) {
        throw new IllegalArgumentException("no segment " + segment);
      }
      wanted.set(segment);
    }
    if (!trees.nodes().contains(peer) || peer.equals(trees.self())) {
      throw new IllegalArgumentException("no tree is shared with " + peer);
    }
    return new SegmentCursor(
        storage.scan(EVERYTHING),
        entry ->
            wanted.get(HashTrees.segment(entry.key()))
                && trees.shared(peer, entry.key(), entry.record()),
        rate,
        metrics);
  }

  /** Whether the trees are built, so that rounds run and peers' exchanges are answered. */
  public CompletableFuture<Void> built() {
    return built;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (next != null) {
      next.cancel(false);
    }
  }
}
