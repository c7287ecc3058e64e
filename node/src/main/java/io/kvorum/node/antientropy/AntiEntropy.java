package io.kvorum.node.antientropy;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anti-entropy (SPEC §7): builds the {@link HashTrees} by one scan at start, then runs rounds over
 * every peer, one exchange at a time ({@link PeerExchange}): the first an interval after start,
 * each next one an interval after the previous one started (at once if it took longer, or when
 * {@link #repairNow} asks). Within a round, peers whose exchange failed are tried again after a
 * back-off, while the next round is further away than that. Everything it sends goes through one
 * {@link RepairRate}.
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
  private final LongSupplier nanoTime;
  private final RepairMetrics metrics;
  private final PeerRepairs repairs;
  private final ExchangeAnswers answers;
  private final CompletableFuture<Void> built = new CompletableFuture<>();
  private boolean running;
  private boolean requested;
  private boolean closed;
  private boolean retryPending;
  private ScheduledFuture<?> next;
  private volatile long lastFullRoundStart = -1;

  /** Counts membership changes: a round that saw one is not a full round of the new peers. */
  private final AtomicLong generation = new AtomicLong();

  private volatile long previousFullRoundStart = -1;

  /**
   * @param storage the node's storage, through the {@link TreeKeepingStorageEngine} that feeds
   *     {@code trees}
   * @param nowMillis the node's time for rounds, comparable with record versions (its clock)
   * @param nanoTime monotonic time, as {@code timer} keeps it (a simulation's virtual time)
   */
  public AntiEntropy(
      HashTrees trees,
      StorageEngine storage,
      PeerTransport transport,
      Settings settings,
      ScheduledExecutorService timer,
      LongSupplier nowMillis,
      LongSupplier nanoTime,
      MeterRegistry registry) {
    this.trees = trees;
    this.storage = storage;
    this.transport = transport;
    this.peers = trees.nodes().stream().filter(n -> !n.equals(trees.self())).toList();
    this.settings = settings;
    this.timer = timer;
    this.nowMillis = nowMillis;
    this.nanoTime = nanoTime;
    this.rate = new RepairRate(settings.bytesPerSecond(), timer, nanoTime);
    this.metrics = new RepairMetrics(registry);
    this.repairs = new PeerRepairs(peers, registry);
    this.answers = new ExchangeAnswers(storage, rate, metrics);
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
      generation.incrementAndGet();
      previousFullRoundStart = -1;
    }
    repairs.follow(peers);
    log.info("membership changed: rebuilding the hash trees for peers {}", peers);
    build(next, new CompletableFuture<>());
  }

  private CompletableFuture<Void> build(HashTrees trees, CompletableFuture<Void> built) {
    long startedAt = nanoTime.getAsLong();
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
                  TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - startedAt));
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
    if (running && retryPending) {
      // A round waiting to try failed peers again: start a full one now instead.
      running = false;
      retryPending = false;
      schedule(0);
    } else if (running) {
      requested = true;
    } else if (trees.complete()) {
      schedule(0);
    } else {
      requested = true;
    }
  }

  private synchronized void schedule(long delayMillis) {
    schedule(this::runRound, delayMillis);
  }

  private synchronized void schedule(Runnable task, long delayMillis) {
    if (closed || peers.isEmpty()) {
      return;
    }
    if (next != null) {
      next.cancel(false);
    }
    next = timer.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
  }

  private void runRound() {
    synchronized (this) {
      if (running || closed) {
        return;
      }
      running = true;
      requested = false;
    }
    runExchanges(peers, nowMillis.getAsLong(), nanoTime.getAsLong(), generation.get(), 0);
  }

  /**
   * One pass of the round that started at {@code startedAt} (Unix ms; {@code startedNanos} on the
   * monotonic clock) over {@code which} peers. The peers whose exchange failed are tried again
   * after a back-off ({@link #retryDelayMillis}) within the round, so a peer whose circuit breaker
   * was open a moment or that restarted does not wait a whole interval; the round completes with
   * its first pass's start once every peer's exchange succeeded, which is what {@link
   * #purgeableBefore} needs: every exchange of it started after that moment.
   */
  private void runExchanges(
      List<NodeId> which, long startedAt, long startedNanos, long ofGeneration, int attempt) {
    synchronized (this) {
      if (attempt > 0 && !retryPending) {
        return; // superseded by a round asked for meanwhile
      }
      retryPending = false;
    }
    exchangeAll(which, 0, new ArrayList<>())
        .whenComplete(
            (failed, error) -> {
              List<NodeId> left = error == null ? failed : which;
              long elapsedMillis =
                  TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - startedNanos);
              long untilNextRound = Math.max(0, settings.interval().toMillis() - elapsedMillis);
              Duration took = Duration.ofMillis(elapsedMillis);
              if (left.isEmpty() && ofGeneration == generation.get()) {
                metrics.round("complete", took);
                previousFullRoundStart = lastFullRoundStart;
                lastFullRoundStart = startedAt;
              }
              boolean retry;
              long delay;
              synchronized (this) {
                long retryDelay = retryDelayMillis(attempt);
                retry = !left.isEmpty() && !requested && retryDelay < untilNextRound;
                running = retry;
                retryPending = retry;
                delay = requested ? 0 : retry ? retryDelay : untilNextRound;
              }
              if (retry) {
                log.debug("anti-entropy: retrying {} in {} ms", left, delay);
                schedule(
                    () ->
                        runExchanges(
                            List.copyOf(left), startedAt, startedNanos, ofGeneration, attempt + 1),
                    delay);
              } else {
                if (!left.isEmpty()) {
                  metrics.round("incomplete", took);
                }
                schedule(delay);
              }
            });
  }

  /** 5 s after a round's first pass, doubling up to a minute. */
  static long retryDelayMillis(int attempt) {
    return Math.min(60_000L, 5_000L << Math.min(attempt, 4));
  }

  /** Exchanges with {@code which} peers from {@code index} on, one at a time; the failed ones. */
  private CompletableFuture<List<NodeId>> exchangeAll(
      List<NodeId> which, int index, List<NodeId> failed) {
    if (index == which.size() || closed) {
      if (closed) {
        failed.addAll(which.subList(index, which.size()));
      }
      return CompletableFuture.completedFuture(failed);
    }
    HashTrees trees = this.trees;
    if (!trees.complete()) {
      // Rebuilt for a new membership and not filled yet: these exchanges wait for the next pass.
      failed.addAll(which.subList(index, which.size()));
      return CompletableFuture.completedFuture(failed);
    }
    NodeId peer = which.get(index);
    if (!peers.contains(peer)) {
      return exchangeAll(which, index + 1, failed); // no longer a member
    }
    long startedNanos = nanoTime.getAsLong();
    CompletableFuture<PeerExchange.Outcome> exchange;
    try {
      exchange = new PeerExchange(peer, trees, storage, transport, rate, metrics).run();
    } catch (RuntimeException e) {
      exchange = CompletableFuture.failedFuture(e);
    }
    return exchange
        .handle(
            (outcome, error) -> {
              recordExchange(peer, outcome, error, startedNanos);
              if (error != null) {
                failed.add(peer);
              }
              return null;
            })
        .thenCompose(ignored -> exchangeAll(which, index + 1, failed));
  }

  /** Notes how the exchange with {@code peer} that started at {@code startedNanos} went. */
  private void recordExchange(
      NodeId peer, PeerExchange.Outcome outcome, Throwable error, long startedNanos) {
    Duration took = Duration.ofNanos(nanoTime.getAsLong() - startedNanos);
    metrics.exchange(peer.value(), error == null ? "ok" : "error", took);
    if (error != null) {
      String reason = Failures.rootMessage(error);
      log.debug("anti-entropy with {} failed: {}", peer, reason);
      repairs.failed(peer, reason);
      return;
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
    repairs.completed(peer, nowMillis.getAsLong(), outcome.repaired());
  }

  /** How the exchanges with {@code peer} went. */
  public PeerRepair peer(NodeId peer) {
    return repairs.get(peer);
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
    return answers.hashes(trees, peer, level, positions);
  }

  /**
   * This node's records of {@code segments} that {@code peer} should hold too, released at the
   * repair rate.
   */
  public ScanCursor segments(NodeId peer, int[] segments) {
    return answers.segments(trees, peer, segments);
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
