package io.kvorum.node.transport;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.topology.Member;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.LongStream;

/**
 * Guards every call to a peer with a Resilience4j circuit breaker and bulkhead per peer, and times
 * it ({@code kvorum_replica_calls_seconds} by peer, operation and outcome).
 *
 * <p>A peer whose breaker is open (most of its recent calls got no answer) is answered "not
 * available" at once instead of costing every request a timeout; after a pause a few trial calls
 * decide whether it is back. Only failures that say the peer is not serving count against it
 * ({@link FailureKind#countsAgainstPeer}: no answer, shutting down, a failure nobody typed). A peer
 * that answered with an error of its own (a full disk, a refused clock, an overloaded queue, an
 * invalid request) is alive and quick, and its answers count as successes.
 *
 * <p>The bulkhead caps the calls in flight to one peer, so a slow peer cannot absorb all of a
 * coordinator's memory; a call beyond the cap fails at once.
 */
public final class ResilientPeerTransport implements PeerTransport {
  /** The calls to one peer a node keeps in flight at most (its bulkhead). */
  public static final int MAX_CALLS_IN_FLIGHT_PER_PEER = 4096;

  /** How long a node's open breaker refuses calls to a peer before trying it again. */
  public static final Duration BREAKER_OPEN_FOR = Duration.ofSeconds(2);

  private final PeerTransport delegate;
  private final CircuitBreakerRegistry breakers;
  private final BulkheadRegistry bulkheads;
  private final MeterRegistry registry;
  private final Map<TimerKey, Timer> timers = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;
  private final boolean breakerThread;

  /**
   * @param maxCallsInFlight calls to one peer that may be in flight at once
   * @param openFor how long an open breaker refuses calls before trying again
   */
  public ResilientPeerTransport(
      PeerTransport delegate, int maxCallsInFlight, Duration openFor, MeterRegistry registry) {
    this(delegate, maxCallsInFlight, openFor, registry, System::nanoTime, true);
  }

  /**
   * @param nanoTime monotonic time: the breakers' and the timers' (a simulation's virtual time)
   * @param breakerThread whether an open breaker turns half-open on Resilience4j's own timer
   *     thread; without it, it does so when a call or {@link #state} finds its pause over
   */
  public ResilientPeerTransport(
      PeerTransport delegate,
      int maxCallsInFlight,
      Duration openFor,
      MeterRegistry registry,
      LongSupplier nanoTime,
      boolean breakerThread) {
    this.delegate = delegate;
    this.registry = registry;
    this.nanoTime = nanoTime;
    this.breakerThread = breakerThread;
    this.breakers =
        CircuitBreakerRegistry.of(
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(20)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(openFor)
                .permittedNumberOfCallsInHalfOpenState(3)
                .automaticTransitionFromOpenToHalfOpenEnabled(breakerThread)
                .clock(new NanoClock(nanoTime))
                .recordException(ResilientPeerTransport::notServing)
                .build());
    this.bulkheads =
        BulkheadRegistry.of(
            BulkheadConfig.custom()
                .maxConcurrentCalls(maxCallsInFlight)
                .maxWaitDuration(Duration.ZERO)
                .build());
    TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(registry);
    TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(registry);
  }

  /** Guarded unless the operation says otherwise ({@link Operation#guarded}), and timed. */
  @Override
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    if (!operation.guarded()) {
      return delegate.call(peer, operation, request);
    }
    return guarded(peer, operation.name(), () -> delegate.call(peer, operation, request));
  }

  /** Not guarded: the node asked is not a peer yet, and a refusal is retried by the caller. */
  @Override
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    return delegate.callAt(host, port, operation, request);
  }

  /** Refused at once while the peer's breaker is open; each batch timed. */
  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    return streamed(peer, operation.name(), () -> delegate.open(peer, operation, request));
  }

  @Override
  public void members(List<Member> members) {
    delegate.members(members);
  }

  private ScanCursor streamed(NodeId peer, String operation, Supplier<ScanCursor> open) {
    CircuitBreaker breaker = breaker(peer);
    if (!breaker.tryAcquirePermission()) {
      return ScanCursor.failed(unavailable(peer, "its circuit breaker is open"));
    }
    breaker.releasePermission();
    return open.get().mapBatches(batch -> measured(peer, operation, batch, nanoTime.getAsLong()));
  }

  @Override
  public PeerState state(NodeId peer) {
    PeerState underlying = delegate.state(peer);
    CircuitBreaker breaker = breaker(peer);
    if (!breakerThread
        && breaker.getState() == CircuitBreaker.State.OPEN
        && breaker.tryAcquirePermission()) {
      // Without the timer thread an open breaker turns half-open when asked after its pause.
      breaker.releasePermission();
    }
    CircuitBreaker.State circuit = breaker.getState();
    boolean open =
        circuit == CircuitBreaker.State.OPEN || circuit == CircuitBreaker.State.FORCED_OPEN;
    return new PeerState(
        underlying.reachable() && !open,
        underlying.reachable()
            ? "circuit " + circuit.name().toLowerCase(Locale.ROOT)
            : underlying.detail());
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    delegate.onPeerReachable(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    // A closed breaker forgets too: failures from before the peer came back (three of the five
    // calls it needs) would open it at the peer's first two answers.
    breaker(peer).reset();
    delegate.peerAnnounced(peer);
  }

  @Override
  public void close() {
    delegate.close();
  }

  private <T> CompletableFuture<T> guarded(
      NodeId peer, String operation, Supplier<CompletableFuture<T>> call) {
    Bulkhead bulkhead = bulkheads.bulkhead(peer.value());
    if (!bulkhead.tryAcquirePermission()) {
      return count(peer, operation, "rejected", unavailable(peer, "too many calls in flight"));
    }
    CircuitBreaker breaker = breaker(peer);
    if (!breaker.tryAcquirePermission()) {
      bulkhead.onComplete();
      return count(peer, operation, "rejected", unavailable(peer, "its circuit breaker is open"));
    }
    long start = nanoTime.getAsLong();
    CompletableFuture<T> result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return measured(peer, operation, result, start)
        .whenComplete(
            (value, error) -> {
              bulkhead.onComplete();
              long elapsed = nanoTime.getAsLong() - start;
              if (error == null) {
                breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
              } else {
                breaker.onError(elapsed, TimeUnit.NANOSECONDS, error);
              }
            });
  }

  private <T> CompletableFuture<T> measured(
      NodeId peer, String operation, CompletableFuture<T> result, long start) {
    return result.whenComplete(
        (value, error) ->
            timer(peer, operation, error == null ? "ok" : "error")
                .record(nanoTime.getAsLong() - start, TimeUnit.NANOSECONDS));
  }

  private <T> CompletableFuture<T> count(
      NodeId peer, String operation, String outcome, RuntimeException error) {
    timer(peer, operation, outcome).record(0, TimeUnit.NANOSECONDS);
    return CompletableFuture.failedFuture(error);
  }

  /**
   * Histogram buckets of {@code kvorum_replica_calls_seconds} (for {@code histogram_quantile}): a
   * call on a healthy network takes well under a millisecond, and none outlasts the request timeout
   * (1 s by default) by much; 14 buckets per series keep peers × operations × outcomes cheap.
   */
  private static final Duration[] REPLICA_CALL_BUCKETS =
      LongStream.of(
              250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
              1_000_000, 2_500_000, 5_000_000)
          .mapToObj(micros -> Duration.ofNanos(micros * 1_000))
          .toArray(Duration[]::new);

  /** A call's timer, registered once: a registry lookup per call costs microseconds. */
  private Timer timer(NodeId peer, String operation, String outcome) {
    return timers.computeIfAbsent(
        new TimerKey(peer, operation, outcome), k -> register(peer, operation, outcome));
  }

  private record TimerKey(NodeId peer, String operation, String outcome) {}

  private Timer register(NodeId peer, String operation, String outcome) {
    return Timer.builder("kvorum.replica.calls")
        .description("calls to other nodes' replicas by peer, operation and outcome")
        .tag("peer", peer.value())
        .tag("operation", operation)
        .tag("outcome", outcome)
        .serviceLevelObjectives(REPLICA_CALL_BUCKETS)
        .register(registry);
  }

  private CircuitBreaker breaker(NodeId peer) {
    return breakers.circuitBreaker(peer.value());
  }

  /** Whether a call's failure says the peer is not serving (not an answer of its own). */
  static boolean notServing(Throwable failure) {
    return FailureKind.of(failure).countsAgainstPeer();
  }

  /** Resilience4j's clock on {@code nanoTime}: its breakers' pauses in the node's time. */
  private static final class NanoClock extends Clock {
    private final LongSupplier nanoTime;

    NanoClock(LongSupplier nanoTime) {
      this.nanoTime = nanoTime;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochSecond(0, nanoTime.getAsLong());
    }
  }

  /** A call refused here, never sent: an open circuit breaker, a full bulkhead. */
  private static PeerUnavailableException unavailable(NodeId peer, String reason) {
    return new PeerUnavailableException(peer, reason, null, true);
  }
}
