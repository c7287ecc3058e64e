package io.kvorum.node.replication;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.FailureStreak;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.HintStore.Hint;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hinted handoff: a write a replica did not take is kept here, durably, and delivered when that
 * replica is reachable again (when it says hello, when its connection comes up, and on a timer).
 * Hints never count toward a request's {@code ack}. Hints older than the hint window are dropped,
 * as are new hints for a peer that already has the maximum pending.
 *
 * <p>Deliveries to one peer never overlap, whatever started them: a delivery asked for while one is
 * under way waits for it, then makes a fresh pass over what is left. A pass sends oldest hints
 * first and stops at the first failure. {@link #welcome} (a peer said hello, or its connection came
 * up) keeps making passes until one finds nothing left, so a hello is answered only once every hint
 * held for the caller was written and confirmed by it. Delivering a hint twice is harmless
 * (last-writer-wins). A hint the replica refuses in a way that is not {@linkplain
 * FailureKind#hinted hinted}, for its version's clock ({@link ClockOffsetException}: written by
 * this node while its clock was ahead), is dropped: delivered once the replica's clock has caught
 * up, it would win over the writes made since. So is a hint for a replica that no longer holds its
 * key ({@link Holders}): a membership change completed since the write, and that replica, one of
 * the key's old owners, drops what it no longer owns; delivered after that, the hint would leave a
 * stray copy there that nothing reads or removes.
 */
public final class HintedHandoff {
  private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);
  private static final int BATCH = 256;
  private static final Duration FIRST_PAUSE = Duration.ofMillis(10);
  private static final Duration LONGEST_PAUSE = Duration.ofSeconds(1);

  /** How often a node delivers its hints to the peers it can reach ({@link #deliverAll()}). */
  public static final Duration REPLAY_INTERVAL = Duration.ofSeconds(10);

  /** The longest a graceful stop waits for its last delivery of the hints it holds. */
  public static final Duration MAX_DELIVERY_AT_SHUTDOWN = Duration.ofSeconds(10);

  /**
   * @param window hints older than this are dropped instead of delivered
   * @param maxPerPeer new hints for a peer with this many pending are dropped
   * @param welcomeLimit how long {@link #welcome} keeps trying before it gives up: the longest a
   *     returning node waits for its hints (its catch-up timeout)
   */
  public record Settings(Duration window, long maxPerPeer, Duration welcomeLimit) {
    /** The default catch-up timeout. */
    public static final Duration DEFAULT_WELCOME_LIMIT = Duration.ofSeconds(10);

    public Settings {
      if (welcomeLimit.isNegative()) {
        throw new IllegalArgumentException("negative welcome limit: " + welcomeLimit);
      }
    }
  }

  /**
   * What one pass handed over: hints the peer confirmed (by this pass and the one it waited for),
   * whether it ended because no hint was left, and the failure that ended it early, or null.
   */
  private record Pass(long delivered, boolean drained, Throwable stoppedBy) {}

  private final HintStore store;
  private final PeerTransport transport;
  private final Holders holders;
  private final LongSupplier wallMillis;
  private final Settings settings;
  private final ConcurrentMap<NodeId, CompletableFuture<Pass>> deliveries =
      new ConcurrentHashMap<>();
  private final HintMetrics metrics;

  private final ScheduledExecutorService timer;
  private final LongSupplier nanoTime;

  /** On a full disk every hint fails to be stored: logged when that starts and ends. */
  private final FailureStreak storeFailures = new FailureStreak();

  /**
   * @param holders whether a hint's replica still holds its key when the hint is delivered
   * @param timer keeps the pauses between the passes of a welcome
   * @param nanoTime monotonic time, as {@code timer} keeps it (a simulation's virtual time)
   */
  public HintedHandoff(
      HintStore store,
      PeerTransport transport,
      Holders holders,
      LongSupplier wallMillis,
      Settings settings,
      List<NodeId> peers,
      MeterRegistry registry,
      ScheduledExecutorService timer,
      LongSupplier nanoTime) {
    this.store = store;
    this.transport = transport;
    this.holders = holders;
    this.wallMillis = wallMillis;
    this.settings = settings;
    this.timer = timer;
    this.nanoTime = nanoTime;
    this.metrics = new HintMetrics(registry, store, peers);
  }

  /** How long a hint is kept before it is dropped undelivered. */
  public Duration window() {
    return settings.window();
  }

  /** Keeps {@code record} for {@code target}, which did not confirm the write. */
  public CompletableFuture<Void> hint(NodeId target, Key key, Record record) {
    if (store.pending(target) >= settings.maxPerPeer()) {
      metrics.droppedByCap().increment();
      log.debug(
          "{} already has {} hints pending; dropping one more", target, settings.maxPerPeer());
      return CompletableFuture.completedFuture(null);
    }
    return store
        .add(target, key, record, wallMillis.getAsLong())
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                metrics.stored().increment();
                if (storeFailures.succeeded()) {
                  log.info("storing hints works again");
                }
              } else {
                metrics.notStored().increment();
                if (storeFailures.failed(error)) {
                  log.warn(
                      "storing hints failed: could not store one for {}: {}; repeats are not"
                          + " logged until it works again",
                      target,
                      error.toString());
                } else {
                  log.debug("could not store a hint for {}: {}", target, error.toString());
                }
              }
            });
  }

  /** Hints pending for {@code peer}. */
  public long pending(NodeId peer) {
    return store.pending(peer);
  }

  /**
   * Makes one pass over the hints held for {@code target} now, after any delivery to it already
   * running; the pass stops at the first hint the peer does not confirm.
   *
   * @return how many hints were handed over, by this pass or the one it waited for
   */
  public CompletableFuture<Long> deliver(NodeId target) {
    return pass(target).thenApply(Pass::delivered);
  }

  /**
   * {@code peer} is back (it said hello, or its connection came up again), whatever its connection
   * back-off or circuit breaker still say: clear those and deliver its hints now. Passes are
   * repeated, with short pauses, until one finds no hint left, or fail once the welcome limit has
   * passed.
   *
   * @return how many hints were handed over while this welcome waited; completes only once no hint
   *     for {@code peer} is left, and fails with {@link UnavailableException} if hints are still
   *     pending at the welcome limit
   */
  public CompletableFuture<Long> welcome(NodeId peer) {
    return handOver(peer, nanoTime.getAsLong() + settings.welcomeLimit().toNanos(), 0, FIRST_PAUSE)
        .whenComplete(
            (delivered, error) -> {
              if (error != null) {
                log.warn("gave up handing hints over to {}: {}", peer, error.getMessage());
              }
            });
  }

  private CompletableFuture<Long> handOver(
      NodeId peer, long deadlineNanos, long deliveredSoFar, Duration pause) {
    // The peer is alive (it is waiting for this answer, or its connection just came up): every
    // pass starts with a clean slate of back-off and circuit breaker.
    transport.peerAnnounced(peer);
    return pass(peer)
        .handle((pass, error) -> pass != null ? pass : new Pass(0, false, error))
        .thenCompose(
            pass -> {
              long total = deliveredSoFar + pass.delivered();
              if (pass.drained()) {
                return CompletableFuture.completedFuture(total);
              }
              if (nanoTime.getAsLong() + pause.toNanos() > deadlineNanos) {
                return CompletableFuture.failedFuture(stillPending(peer, pass.stoppedBy()));
              }
              Duration next = pause.multipliedBy(2);
              CompletableFuture<Void> paused = new CompletableFuture<>();
              timer.schedule(() -> paused.complete(null), pause.toNanos(), TimeUnit.NANOSECONDS);
              return paused.thenCompose(
                  ignored ->
                      handOver(
                          peer,
                          deadlineNanos,
                          total,
                          next.compareTo(LONGEST_PAUSE) < 0 ? next : LONGEST_PAUSE));
            });
  }

  private UnavailableException stillPending(NodeId peer, Throwable cause) {
    return new UnavailableException(
        store.pending(peer)
            + " hints for "
            + peer
            + " are still pending after "
            + settings.welcomeLimit().toMillis()
            + " ms"
            + (cause == null ? "" : ": " + Failures.rootMessage(cause)));
  }

  /** One pass, after the pass to {@code target} under way, if any. */
  private CompletableFuture<Pass> pass(NodeId target) {
    return deliveries.compute(
        target,
        (peer, running) ->
            running == null || running.isDone()
                ? ownPass(peer, 0)
                : running
                    .handle((pass, error) -> pass == null ? 0L : pass.delivered())
                    .thenCompose(earlier -> ownPass(peer, earlier)));
  }

  private CompletableFuture<Pass> ownPass(NodeId peer, long earlier) {
    return deliverFrom(peer, 1, 0)
        .whenComplete(
            (pass, error) -> {
              if (error != null) {
                log.warn("hint delivery to {} stopped: {}", peer, error.toString());
              } else if (pass.delivered() > 0) {
                log.info("delivered {} hints to {}", pass.delivered(), peer);
              }
            })
        .thenApply(pass -> new Pass(earlier + pass.delivered(), pass.drained(), pass.stoppedBy()));
  }

  /** Delivers to every reachable peer with hints; drops expired hints of the others. */
  public CompletableFuture<Void> deliverAll() {
    List<CompletableFuture<?>> runs = new ArrayList<>();
    for (NodeId target : store.targets()) {
      runs.add(transport.state(target).reachable() ? deliver(target) : expire(target));
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
  }

  /**
   * Delivers in waves that start at one hint and double up to {@value #BATCH} (a slow start): a
   * peer just back, or a circuit breaker trying it half-open, is not flooded before it answered.
   */
  private CompletableFuture<Pass> deliverFrom(NodeId target, int wave, long deliveredSoFar) {
    if (PlantedBug.HINT_REPLAY_SKIPPED.planted()) {
      return CompletableFuture.completedFuture(new Pass(deliveredSoFar, true, null));
    }
    long cutoff = wallMillis.getAsLong() - settings.window().toMillis();
    return store
        .oldest(target, wave)
        .thenCompose(
            batch -> {
              if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(new Pass(deliveredSoFar, true, null));
              }
              List<Hint> expired =
                  batch.stream().filter(h -> h.createdAtMillis() < cutoff).toList();
              List<Hint> live = new ArrayList<>();
              List<Hint> moved = new ArrayList<>();
              for (Hint hint : batch) {
                if (hint.createdAtMillis() >= cutoff) {
                  (holders.holds(target, hint.key(), hint.record()) ? live : moved).add(hint);
                }
              }
              return dropExpired(expired)
                  .thenCompose(ignored -> dropMoved(target, moved))
                  .thenCompose(ignored -> send(target, live))
                  .thenCompose(
                      sent -> {
                        long total = deliveredSoFar + sent.confirmed();
                        // Stop at a failure: the peer is away again; the next trigger resumes.
                        return sent.firstFailure() != null
                            ? CompletableFuture.completedFuture(
                                new Pass(total, false, sent.firstFailure()))
                            : deliverFrom(target, Math.min(2 * wave, BATCH), total);
                      });
            });
  }

  /** What one wave achieved: how many hints the peer confirmed, and the first failure if any. */
  private record Sent(int confirmed, Throwable firstFailure) {}

  /** Sends hints in parallel; removes those the peer confirmed. */
  private CompletableFuture<Sent> send(NodeId target, List<Hint> hints) {
    List<CompletableFuture<Throwable>> sends = new ArrayList<>();
    for (Hint hint : hints) {
      sends.add(
          transport
              .call(target, ReplicaProtocol.WRITE, new Entry(hint.key(), hint.record()))
              .handle((ok, error) -> error));
    }
    return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .thenCompose(
            ignored -> {
              List<Hint> confirmed = new ArrayList<>();
              List<Hint> refused = new ArrayList<>();
              Throwable firstFailure = null;
              Throwable refusal = null;
              for (int i = 0; i < hints.size(); i++) {
                Throwable error = sends.get(i).join();
                if (error == null) {
                  confirmed.add(hints.get(i));
                } else if (!FailureKind.of(error).hinted()) {
                  refused.add(hints.get(i));
                  refusal = error;
                } else if (firstFailure == null) {
                  firstFailure = error;
                }
              }
              Throwable failure = firstFailure;
              if (!refused.isEmpty()) {
                log.warn(
                    "dropping {} hints for {}: their versions are ahead of its clock ({})",
                    refused.size(),
                    target,
                    Failures.rootMessage(refusal));
              }
              List<Hint> done = new ArrayList<>(confirmed);
              done.addAll(refused);
              return store
                  .remove(done)
                  .thenApply(
                      removed -> {
                        metrics.delivered().increment(confirmed.size());
                        metrics.droppedByClock().increment(refused.size());
                        return new Sent(confirmed.size(), failure);
                      });
            });
  }

  private CompletableFuture<Void> dropExpired(List<Hint> expired) {
    if (expired.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return store.remove(expired).thenRun(() -> metrics.droppedByWindow().increment(expired.size()));
  }

  /** Forgets hints whose replica no longer holds their keys: nothing is missing there. */
  private CompletableFuture<Void> dropMoved(NodeId target, List<Hint> moved) {
    if (moved.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return store
        .remove(moved)
        .thenRun(
            () ->
                log.info(
                    "forgot {} hints for {}: it no longer holds their keys since a membership"
                        + " change",
                    moved.size(),
                    target));
  }

  /**
   * Drops the expired hints of an unreachable peer, so that a long absence cannot fill the disk.
   */
  private CompletableFuture<Void> expire(NodeId target) {
    long cutoff = wallMillis.getAsLong() - settings.window().toMillis();
    return store
        .oldest(target, BATCH)
        .thenCompose(
            batch -> {
              List<Hint> expired =
                  batch.stream().filter(h -> h.createdAtMillis() < cutoff).toList();
              CompletableFuture<Void> dropped = dropExpired(expired);
              return expired.size() == BATCH ? dropped.thenCompose(x -> expire(target)) : dropped;
            });
  }
}
