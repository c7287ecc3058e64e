package io.kvorum.node.antientropy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The figures of anti-entropy ({@code kvorum_repair_*}): segments compared and found differing,
 * records and bytes sent and received, and how long exchanges and full rounds take.
 */
final class RepairMetrics {
  private final MeterRegistry registry;
  private final Counter compared;
  private final Counter differing;
  private final Counter recordsSent;
  private final Counter recordsReceived;
  private final Counter bytesSent;
  private final Counter bytesReceived;

  RepairMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.compared =
        Counter.builder("kvorum.repair.segments.compared")
            .description("hash-tree leaves (segments) compared with peers")
            .register(registry);
    this.differing =
        Counter.builder("kvorum.repair.segments.differing")
            .description("compared segments whose hashes differed")
            .register(registry);
    this.recordsSent =
        records("sent", "records pushed to peers or streamed to peers that pulled", registry);
    this.recordsReceived = records("received", "records peers streamed to this node", registry);
    this.bytesSent = bytes("sent", registry);
    this.bytesReceived = bytes("received", registry);
    // Both outcomes from the start: a node that never completes a round shows a count of 0 that
    // stays 0 (what the alert on anti-entropy that stopped completing rounds watches), not none.
    rounds("complete");
    rounds("incomplete");
  }

  private Timer rounds(String outcome) {
    return Timer.builder("kvorum.repair.rounds")
        .description("rounds over every peer, by outcome (complete: every exchange succeeded)")
        .tag("outcome", outcome)
        .register(registry);
  }

  private static Counter records(String direction, String description, MeterRegistry registry) {
    return Counter.builder("kvorum.repair.records")
        .description("records exchanged by anti-entropy: " + description)
        .tag("direction", direction)
        .register(registry);
  }

  private static Counter bytes(String direction, MeterRegistry registry) {
    return Counter.builder("kvorum.repair.bytes")
        .description("bytes of keys and values exchanged by anti-entropy, by direction")
        .baseUnit("bytes")
        .tag("direction", direction)
        .register(registry);
  }

  void segmentsCompared(int n) {
    compared.increment(n);
  }

  void segmentsDiffering(int n) {
    differing.increment(n);
  }

  void sent(long records, long bytes) {
    recordsSent.increment(records);
    bytesSent.increment(bytes);
  }

  void received(long records, long bytes) {
    recordsReceived.increment(records);
    bytesReceived.increment(bytes);
  }

  void exchange(String peer, String outcome, Duration took) {
    Timer.builder("kvorum.repair.exchanges")
        .description("exchanges with one peer, by peer and outcome")
        .tag("peer", peer)
        .tag("outcome", outcome)
        .register(registry)
        .record(took);
  }

  void round(String outcome, Duration took) {
    rounds(outcome).record(took);
  }
}
