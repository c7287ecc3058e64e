package io.kvorum.node.replication;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.HintStore.Hint;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hinted handoff: a write a replica did not take is kept here, durably, and delivered when that
 * replica is reachable again (when it says hello, when its connection comes up, and on a timer).
 * Hints never count toward a request's {@code ack}. Hints older than the hint window are dropped,
 * as are new hints for a peer that already has the maximum pending.
 *
 * <p>Deliveries to one peer run one after another, oldest hints first, and stop at the first
 * failure: the peer is not there yet. Delivering a hint twice is harmless (last-writer-wins).
 */
public final class HintedHandoff {
  private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);
  private static final int BATCH = 256;

  /**
   * @param window hints older than this are dropped instead of delivered
   * @param maxPerPeer new hints for a peer with this many pending are dropped
   */
  public record Settings(Duration window, long maxPerPeer) {}

  private final HintStore store;
  private final PeerTransport transport;
  private final LongSupplier wallMillis;
  private final Settings settings;
  private final ConcurrentMap<NodeId, CompletableFuture<Long>> deliveries =
      new ConcurrentHashMap<>();
  private final Counter stored;
  private final Counter delivered;
  private final Counter droppedByWindow;
  private final Counter droppedByCap;
  private final Counter notStored;

  public HintedHandoff(
      HintStore store,
      PeerTransport transport,
      LongSupplier wallMillis,
      Settings settings,
      List<NodeId> peers,
      MeterRegistry registry) {
    this.store = store;
    this.transport = transport;
    this.wallMillis = wallMillis;
    this.settings = settings;
    this.stored =
        counter(
            registry, "kvorum.hints.stored", "hints stored for replicas that missed a write", null);
    this.delivered =
        counter(registry, "kvorum.hints.delivered", "hints delivered to their replica", null);
    this.droppedByWindow =
        counter(registry, "kvorum.hints.dropped", "hints dropped undelivered", "window");
    this.droppedByCap =
        counter(registry, "kvorum.hints.dropped", "hints dropped undelivered", "cap");
    this.notStored =
        counter(registry, "kvorum.hints.dropped", "hints dropped undelivered", "store-failed");
    for (NodeId peer : peers) {
      Gauge.builder("kvorum.hints.pending", store, s -> s.pending(peer))
          .description("hints held for a peer, waiting for delivery")
          .tag("peer", peer.value())
          .register(registry);
    }
  }

  private static Counter counter(
      MeterRegistry registry, String name, String description, String reason) {
    Counter.Builder builder = Counter.builder(name).description(description);
    if (reason != null) {
      builder.tag("reason", reason);
    }
    return builder.register(registry);
  }

  /** Keeps {@code record} for {@code target}, which did not confirm the write. */
  public CompletableFuture<Void> hint(NodeId target, Key key, Record record) {
    if (store.pending(target) >= settings.maxPerPeer()) {
      droppedByCap.increment();
      log.debug(
          "{} already has {} hints pending; dropping one more", target, settings.maxPerPeer());
      return CompletableFuture.completedFuture(null);
    }
    return store
        .add(target, key, record, wallMillis.getAsLong())
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                stored.increment();
              } else {
                notStored.increment();
                log.warn("could not store a hint for {}: {}", target, error.toString());
              }
            });
  }

  /** Hints pending for {@code peer}. */
  public long pending(NodeId peer) {
    return store.pending(peer);
  }

  /**
   * Delivers every hint held for {@code target} now, after any delivery to it already running.
   *
   * @return how many hints were handed over, by this delivery or the one it waited for
   */
  public CompletableFuture<Long> deliver(NodeId target) {
    return deliveries.compute(
        target,
        (peer, running) ->
            (running == null || running.isDone()
                    ? deliverFrom(peer, 1, 0)
                    // Wait for the delivery under way, count what it handed over, look again.
                    : running
                        .handle((delivered, error) -> delivered == null ? 0L : delivered)
                        .thenCompose(earlier -> deliverFrom(peer, 1, earlier)))
                .whenComplete(
                    (count, error) -> {
                      if (error != null) {
                        log.warn("hint delivery to {} stopped: {}", peer, error.toString());
                      } else if (count > 0) {
                        log.info("delivered {} hints to {}", count, peer);
                      }
                    }));
  }

  /**
   * {@code peer} is back (it said hello, or its connection came up again), whatever its connection
   * back-off or circuit breaker still say: clear those and deliver its hints now.
   */
  public CompletableFuture<Long> welcome(NodeId peer) {
    transport.peerAnnounced(peer);
    return deliver(peer);
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
  private CompletableFuture<Long> deliverFrom(NodeId target, int wave, long deliveredSoFar) {
    long cutoff = wallMillis.getAsLong() - settings.window().toMillis();
    return store
        .oldest(target, wave)
        .thenCompose(
            batch -> {
              if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(deliveredSoFar);
              }
              List<Hint> expired =
                  batch.stream().filter(h -> h.createdAtMillis() < cutoff).toList();
              List<Hint> live = batch.stream().filter(h -> h.createdAtMillis() >= cutoff).toList();
              return dropExpired(expired)
                  .thenCompose(ignored -> send(target, live))
                  .thenCompose(
                      sent -> {
                        long total = deliveredSoFar + sent;
                        // Stop at a failure: the peer is away again; the next trigger resumes.
                        return sent < live.size()
                            ? CompletableFuture.completedFuture(total)
                            : deliverFrom(target, Math.min(2 * wave, BATCH), total);
                      });
            });
  }

  /** Sends hints in parallel; removes those the peer confirmed; answers how many. */
  private CompletableFuture<Integer> send(NodeId target, List<Hint> hints) {
    List<CompletableFuture<Hint>> sends = new ArrayList<>();
    for (Hint hint : hints) {
      sends.add(
          transport
              .write(target, hint.key(), hint.record())
              .handle((ok, error) -> error == null ? hint : null));
    }
    return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .thenCompose(
            ignored -> {
              List<Hint> confirmed =
                  sends.stream().map(CompletableFuture::join).filter(h -> h != null).toList();
              return store
                  .remove(confirmed)
                  .thenApply(
                      removed -> {
                        delivered.increment(confirmed.size());
                        return confirmed.size();
                      });
            });
  }

  private CompletableFuture<Void> dropExpired(List<Hint> expired) {
    if (expired.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return store.remove(expired).thenRun(() -> droppedByWindow.increment(expired.size()));
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
