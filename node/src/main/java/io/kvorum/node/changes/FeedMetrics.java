package io.kvorum.node.changes;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The change feeds' figures: {@code kvorum_change_feeds_open}, {@code
 * kvorum_change_feed_events_total{kind}} (changes and progress events sent), {@code
 * kvorum_change_feeds_cut_off_total} (consumers cut off for not keeping up) and {@code
 * kvorum_change_feed_lag_seconds}: how far the furthest behind open feed's watermark is behind the
 * wall clock (a feed that cannot keep up, or a member holding it back).
 */
final class FeedMetrics {
  private final Set<ChangeFeed> open = ConcurrentHashMap.newKeySet();
  private final Counter changes;
  private final Counter progress;
  private final Counter cutOff;

  FeedMetrics(MeterRegistry registry, LongSupplier wallMillis) {
    Gauge.builder("kvorum.change.feeds.open", open, Set::size)
        .description("change feeds open on this node")
        .register(registry);
    Gauge.builder("kvorum.change.feed.lag", open, feeds -> lagSeconds(feeds, wallMillis))
        .description("how far the watermark of the furthest behind open feed is behind now")
        .baseUnit("seconds")
        .register(registry);
    changes = events(registry, "change");
    progress = events(registry, "progress");
    cutOff =
        Counter.builder("kvorum.change.feeds.cut.off")
            .description("change feeds ended because their consumer did not keep up")
            .register(registry);
  }

  private static Counter events(MeterRegistry registry, String kind) {
    return Counter.builder("kvorum.change.feed.events")
        .description("events change feeds sent")
        .tag("kind", kind)
        .register(registry);
  }

  private static double lagSeconds(Set<ChangeFeed> feeds, LongSupplier wallMillis) {
    long oldest = Long.MAX_VALUE;
    for (ChangeFeed feed : feeds) {
      oldest = Math.min(oldest, Cursors.millis(feed.watermark()));
    }
    return oldest == Long.MAX_VALUE ? 0 : Math.max(0, wallMillis.getAsLong() - oldest) / 1000.0;
  }

  /** The feeds open now. */
  Set<ChangeFeed> open() {
    return Set.copyOf(open);
  }

  void opened(ChangeFeed feed) {
    open.add(feed);
  }

  void closed(ChangeFeed feed) {
    open.remove(feed);
  }

  void sent(FeedEvent event) {
    (event instanceof FeedEvent.Changed ? changes : progress).increment();
  }

  void cutOff() {
    cutOff.increment();
  }
}
