package io.kvorum.bench.report;

import java.time.Duration;

/**
 * One streamed range scan over the whole key space.
 *
 * @param bytes body bytes received
 * @param elapsed from the request to the last byte
 * @param heapBefore the coordinator's heap in use just before the scan, in bytes
 * @param heapMax the most heap in use seen during the scan (sampled every 200 ms)
 */
public record ScanResult(long bytes, Duration elapsed, long heapBefore, long heapMax) {
  public double megabytesPerSecond() {
    return bytes / 1e6 / (elapsed.toNanos() / 1e9);
  }
}
