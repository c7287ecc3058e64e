package io.kvorum.node.replication;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.HintStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * What {@link HintedHandoff} counts: hints stored, delivered and dropped (by {@code reason}: the
 * hint window, the cap per peer, a failed store, the replica's clock), and the hints pending for
 * each peer. A hint forgotten because its replica no longer holds the key is none of these: nothing
 * is missing there.
 */
record HintMetrics(
    Counter stored,
    Counter delivered,
    Counter droppedByWindow,
    Counter droppedByCap,
    Counter notStored,
    Counter droppedByClock) {

  HintMetrics(MeterRegistry registry, HintStore store, List<NodeId> peers) {
    this(
        counter(
            registry, "kvorum.hints.stored", "hints stored for replicas that missed a write", null),
        counter(registry, "kvorum.hints.delivered", "hints delivered to their replica", null),
        dropped(registry, "window"),
        dropped(registry, "cap"),
        dropped(registry, "store-failed"),
        dropped(registry, "clock"));
    for (NodeId peer : peers) {
      Gauge.builder("kvorum.hints.pending", store, s -> s.pending(peer))
          .description("hints held for a peer, waiting for delivery")
          .tag("peer", peer.value())
          .register(registry);
    }
  }

  private static Counter dropped(MeterRegistry registry, String reason) {
    return counter(registry, "kvorum.hints.dropped", "hints dropped undelivered", reason);
  }

  private static Counter counter(
      MeterRegistry registry, String name, String description, String reason) {
    Counter.Builder builder = Counter.builder(name).description(description);
    if (reason != null) {
      builder.tag("reason", reason);
    }
    return builder.register(registry);
  }
}
