package io.kvorum.node.clock;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far this node's wall clock is from each peer's, and whether it may version writes.
 *
 * <p>Measured NTP-style by a ping ({@link PeerClocks#wallClock}): with {@code t0} this node's wall
 * clock when it sent and {@code t1} when the answer came, and {@code p} the peer's wall clock in
 * the answer, the offset is {@code p - (t0 + t1) / 2} (positive: the peer is ahead) with an
 * uncertainty of half the round trip. Between measurements the estimate follows this node's
 * monotonic clock, so a wall clock that is stepped counts at once, not at the next heartbeat.
 *
 * <p>A node whose clock is certainly further than the max offset from a majority of its peers
 * ({@code |offset| - uncertainty > max} for more than half of them) must not version writes: its
 * versions would be refused by its peers, or would win or lose against later writes by
 * last-writer-wins. Neither may a node whose clock has issued or followed versions further ahead of
 * its own wall clock than the max offset (a wall clock set back). {@link #refusal()} says why.
 * Peers never measured (down since this node started) count as within the bound. Thread-safe.
 */
public final class ClockOffsets {
  private static final Logger log = LoggerFactory.getLogger(ClockOffsets.class);

  /** How often a node measures the peers it can reach ({@link #heartbeat()}). */
  public static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /**
   * A peer's clock as this node sees it now.
   *
   * @param offsetMillis the peer's wall clock minus this node's; positive when the peer is ahead
   * @param uncertaintyMillis half the round trip of the measurement
   */
  public record Offset(long offsetMillis, long uncertaintyMillis) {
    /** Whether the offset is certainly beyond {@code maxMillis}, whatever the round trip hid. */
    public boolean beyond(long maxMillis) {
      return offsetMillis - uncertaintyMillis > maxMillis
          || offsetMillis + uncertaintyMillis < -maxMillis;
    }
  }

  /** A measurement and where this node's clocks stood when it was made. */
  private record Measurement(Offset offset, long wallMillis, long monotonicMillis) {}

  private volatile List<NodeId> peers;
  private final Set<NodeId> gauged = ConcurrentHashMap.newKeySet();
  private final MeterRegistry registry;
  private final PeerClocks peerClocks;
  private final Clock clock;
  private final LongSupplier monotonicNanos;
  private final long maxMillis;
  private final Map<NodeId, Measurement> measured = new ConcurrentHashMap<>();
  private volatile boolean refusing;
  private volatile boolean unmeasured;

  /**
   * @param clock this node's clock: its wall clock is the one measured, its versions the ones
   *     checked
   * @param monotonicNanos a clock that is never stepped ({@link System#nanoTime})
   * @param maxOffset the max clock offset
   */
  public ClockOffsets(
      List<NodeId> peers,
      PeerClocks peerClocks,
      Clock clock,
      LongSupplier monotonicNanos,
      Duration maxOffset,
      MeterRegistry registry) {
    this.peers = List.copyOf(peers);
    this.registry = registry;
    this.peerClocks = peerClocks;
    this.clock = clock;
    this.monotonicNanos = monotonicNanos;
    this.maxMillis = maxOffset.toMillis();
    this.peers.forEach(this::gauge);
    noteMeasured();
    Gauge.builder("kvorum.clock.offset.refusing", this, o -> o.refusal().isPresent() ? 1 : 0)
        .description("1 while this node refuses to coordinate writes because of its clock")
        .register(registry);
  }

  private void gauge(NodeId peer) {
    if (gauged.add(peer)) {
      Gauge.builder(
              "kvorum.clock.offset",
              this,
              offsets -> offsets.offset(peer).map(o -> o.offsetMillis() / 1e3).orElse(Double.NaN))
          .description("the peer's wall clock minus this node's (NaN until measured)")
          .baseUnit("seconds")
          .tag("peer", peer.value())
          .register(registry);
    }
  }

  /**
   * The peers from now on, as the membership changes: a member that joined is measured by the next
   * heartbeat, one that left is forgotten (it no longer counts towards the majority).
   */
  public void members(List<NodeId> current) {
    peers = List.copyOf(current);
    peers.forEach(this::gauge);
    measured.keySet().retainAll(peers);
    noteMeasured();
  }

  /** The max clock offset. */
  public Duration maxOffset() {
    return Duration.ofMillis(maxMillis);
  }

  /** Measures every peer once; completes when each answered or failed (never exceptionally). */
  public CompletableFuture<Void> measureAll() {
    return measure(peers);
  }

  /** The heartbeat: measures every peer that can be reached. */
  public CompletableFuture<Void> heartbeat() {
    return measure(peers.stream().filter(peer -> peerClocks.reachable(peer)).toList());
  }

  private CompletableFuture<Void> measure(List<NodeId> which) {
    List<CompletableFuture<Void>> pings = new ArrayList<>();
    for (NodeId peer : which) {
      pings.add(measure(peer));
    }
    return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
  }

  /** Measures {@code peer} once; completes when it answered or failed (never exceptionally). */
  public CompletableFuture<Void> measure(NodeId peer) {
    long sent = clock.wallMillis();
    CompletableFuture<Long> ping;
    try {
      ping = peerClocks.wallClock(peer);
    } catch (RuntimeException e) {
      ping = CompletableFuture.failedFuture(e);
    }
    return ping.handle(
        (peerWall, error) -> {
          if (error != null) {
            log.debug("could not measure the clock of {}: {}", peer, Failures.rootMessage(error));
          } else {
            record(peer, sent, peerWall, clock.wallMillis());
          }
          return null;
        });
  }

  /**
   * Records one measurement of {@code peer}: this node's wall clock {@code sent} before the ping
   * and {@code received} when its answer came, and the peer's wall clock in the answer.
   */
  void record(NodeId peer, long sent, long peerWall, long received) {
    long roundTrip = Math.max(0, received - sent);
    Offset offset = new Offset(peerWall - (sent + roundTrip / 2), (roundTrip + 1) / 2);
    measured.put(peer, new Measurement(offset, received, monotonicMillis()));
    noteMeasured();
    noteVerdict();
  }

  /**
   * Keeps {@link #unmeasured()} a field read, since every coordinated write asks: recomputed after
   * each change of the peers or of the measurements, under a lock so that the last recomputation
   * follows every change.
   */
  private synchronized void noteMeasured() {
    unmeasured = !measured.keySet().containsAll(peers);
  }

  /**
   * Whether some peer's clock has never been measured (down since this node started, or its
   * connection just came up): until it is, {@link #refusal()} counts it as within the bound, and
   * this node's own clock is not proven.
   */
  public boolean unmeasured() {
    return unmeasured;
  }

  /** The offset to {@code peer} now, if it was ever measured. */
  public Optional<Offset> offset(NodeId peer) {
    Measurement m = measured.get(peer);
    return m == null ? Optional.empty() : Optional.of(now(m));
  }

  private Offset now(Measurement m) {
    // How far this node's wall clock was stepped since the measurement: the peer's did not move.
    long stepped =
        (clock.wallMillis() - m.wallMillis()) - (monotonicMillis() - m.monotonicMillis());
    return new Offset(m.offset().offsetMillis() - stepped, m.offset().uncertaintyMillis());
  }

  /**
   * How far apart the clocks of this node and its measured peers within the max offset may be now,
   * uncertainty included: the greatest peer offset above this node's clock minus the least below
   * it, in milliseconds (0 with no peer measured).
   */
  public long spreadMillis() {
    long ahead = 0;
    long behind = 0;
    for (Measurement m : measured.values()) {
      Offset o = now(m);
      if (o.beyond(maxMillis)) {
        continue;
      }
      ahead = Math.max(ahead, o.offsetMillis() + o.uncertaintyMillis());
      behind = Math.min(behind, o.offsetMillis() - o.uncertaintyMillis());
    }
    return ahead - behind;
  }

  /** Whether {@code peer}'s clock is certainly further from this node's than the max offset. */
  public boolean beyondMax(NodeId peer) {
    return offset(peer).map(o -> o.beyond(maxMillis)).orElse(false);
  }

  /**
   * Why this node must not version writes now, or empty when it may: its clock is beyond the max
   * offset from a majority of its peers, or its clock runs further ahead of its wall clock.
   */
  public Optional<ClockOffsetException> refusal() {
    long ahead = clock.current().physicalMillis() - clock.wallMillis();
    if (ahead > maxMillis) {
      return Optional.of(
          new ClockOffsetException(
              "this node's clock has issued or seen versions "
                  + ahead
                  + " ms ahead of its wall clock (was its wall clock set back?), more than the max"
                  + " clock offset of "
                  + maxMillis
                  + " ms; it coordinates no writes until its wall clock catches up",
              ahead,
              maxMillis));
    }
    // On every write: count without allocating, and explain only when refusing.
    List<NodeId> current = peers;
    int beyondCount = 0;
    for (NodeId peer : current) {
      Measurement m = measured.get(peer);
      if (m != null && now(m).beyond(maxMillis)) {
        beyondCount++;
      }
    }
    if (2 * beyondCount <= current.size()) {
      return Optional.empty();
    }
    Map<NodeId, Offset> beyond = new LinkedHashMap<>();
    for (NodeId peer : current) {
      offset(peer).filter(o -> o.beyond(maxMillis)).ifPresent(o -> beyond.put(peer, o));
    }
    if (beyond.isEmpty()) {
      return Optional.empty();
    }
    // This node's offset to a peer is the opposite of the peer's to it; name the smallest.
    long nearest =
        beyond.values().stream()
            .map(o -> -o.offsetMillis())
            .min(Comparator.comparingLong(Math::abs))
            .orElseThrow();
    return Optional.of(
        new ClockOffsetException(
            "this node's clock is "
                + Math.abs(nearest)
                + " ms or more "
                + (nearest > 0 ? "ahead of" : "behind")
                + " "
                + beyond.size()
                + " of its "
                + current.size()
                + " peers ("
                + beyond.entrySet().stream()
                    .map(e -> e.getKey() + " " + signed(-e.getValue().offsetMillis()) + " ms")
                    .collect(Collectors.joining(", "))
                + "), more than the max clock offset of "
                + maxMillis
                + " ms; it coordinates no writes until its clock is corrected",
            nearest,
            maxMillis));
  }

  /** Logs once when this node starts and once when it stops refusing writes. */
  private void noteVerdict() {
    Optional<ClockOffsetException> refusal = refusal();
    if (refusal.isPresent() != refusing) {
      refusing = refusal.isPresent();
      if (refusing) {
        log.error("refusing to coordinate writes: {}", refusal.get().getMessage());
      } else {
        log.info("the clock is within the max clock offset again; coordinating writes");
      }
    }
  }

  private long monotonicMillis() {
    return monotonicNanos.getAsLong() / 1_000_000;
  }

  private static String signed(long millis) {
    return millis > 0 ? "+" + millis : Long.toString(millis);
  }
}
