package io.kvorum.bench.load;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one load phase measured. Latencies are in microseconds, from the time each request was due.
 *
 * @param name the phase, e.g. {@code put@20000}
 * @param requestedRate requests per second asked for; 0 for a closed-loop phase
 * @param sendWindow how long requests were being sent
 * @param sent requests sent
 * @param succeeded answers with the expected status
 * @param answered answers of any status
 * @param errors by kind: {@code status 503}, {@code timeout} (no answer before the phase ended),
 *     {@code connection} (the connection failed with the request on it)
 * @param latency every answered request, successful or not (wrk2 records none during its
 *     calibration, the first ten seconds of each of its runs)
 * @param latencyByOp the same, split by operation
 * @param perSecond latency percentiles of each second of the phase (none from wrk2)
 * @param bytesReceived response bytes (head and body)
 * @param maxSendLagMicros the most a request left after its due time because the generator itself
 *     was late (not because connections were busy): above a few milliseconds the generator, not the
 *     server, is the limit
 */
public record PhaseResult(
    String name,
    double requestedRate,
    Duration sendWindow,
    long sent,
    long succeeded,
    long answered,
    Map<String, Long> errors,
    Histogram latency,
    Map<String, Histogram> latencyByOp,
    List<Interval> perSecond,
    long bytesReceived,
    long maxSendLagMicros) {

  /** Latency of the requests answered in one second of the phase, in microseconds. */
  public record Interval(int second, long count, long p50, long p99, long max) {}

  public long errorCount() {
    return errors.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Answers per second over the send window. */
  public double achievedRate() {
    return answered / (sendWindow.toNanos() / 1e9);
  }

  public long p99Micros() {
    return latency.getValueAtPercentile(99);
  }
}
