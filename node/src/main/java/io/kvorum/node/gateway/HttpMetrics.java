package io.kvorum.node.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Request metrics: a latency histogram per operation and status code ({@code
 * kvorum_http_request_duration_seconds}, named as Prometheus names HTTP latency), the number of
 * requests in flight ({@code kvorum_http_requests_inflight}), and how many answers were handed to
 * the connection's event loop from another thread ({@code kvorum_http_reply_handoffs_total}).
 */
public final class HttpMetrics {
  private final MeterRegistry registry;
  private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Counter handOffs;

  public HttpMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("kvorum.http.requests.inflight", inFlight, AtomicInteger::get)
        .description("HTTP requests received and not yet fully answered")
        .register(registry);
    this.handOffs =
        Counter.builder("kvorum.http.reply.handoffs")
            .description(
                "answers whose result completed on another thread than the connection's event"
                    + " loop, so the response was queued to the loop as a task")
            .register(registry);
  }

  void handedOff() {
    handOffs.increment();
  }

  void started() {
    inFlight.incrementAndGet();
  }

  void finished(String operation, String status, long startNanos) {
    inFlight.decrementAndGet();
    timers
        .computeIfAbsent(operation + ' ' + status, k -> timer(operation, status))
        .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  /** Requests received and not yet fully answered. */
  public int inFlight() {
    return inFlight.get();
  }

  private Timer timer(String operation, String status) {
    return Timer.builder("kvorum.http.request.duration")
        .description("HTTP requests by operation and response status code")
        .tag("operation", operation)
        .tag("code", status)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(50_000))
        .maximumExpectedValue(Duration.ofSeconds(30))
        .register(registry);
  }
}
