package io.kvorum.node.changes;

import java.time.Duration;
import java.util.Objects;

/**
 * How change feeds run.
 *
 * @param retention how long changes are kept ({@code --change-retention}): an older cursor is gone
 * @param margin how far before its cursor a feed reads the logs again: twice the largest clock
 *     offset between nodes, so a change stamped by a node whose clock is behind is not skipped
 * @param pollInterval how often a feed reads the members' logs when nothing is pending
 * @param progressInterval how often a feed sends a progress event
 * @param memberGrace how long a member that is reachable but fails to answer holds the feed back
 *     before the feed goes on without it (its changes are then sent late, when it answers again)
 * @param maxQueuedEvents events waiting for a consumer that does not read before it is cut off
 * @param maxStall how long a consumer may read nothing while events wait before it is cut off
 */
public record FeedSettings(
    Duration retention,
    Duration margin,
    Duration pollInterval,
    Duration progressInterval,
    Duration memberGrace,
    int maxQueuedEvents,
    Duration maxStall) {
  /** Changes a feed reads from one member at a time. */
  static final int READ_LIMIT = 1024;

  public FeedSettings {
    Objects.requireNonNull(retention, "retention");
    Objects.requireNonNull(margin, "margin");
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(progressInterval, "progressInterval");
    Objects.requireNonNull(memberGrace, "memberGrace");
    Objects.requireNonNull(maxStall, "maxStall");
    if (maxQueuedEvents < 1) {
      throw new IllegalArgumentException("maxQueuedEvents must be positive: " + maxQueuedEvents);
    }
  }

  /**
   * The node's settings: a poll every 100 ms, progress every 2 s, a member failing for 3 s left
   * behind, 10,000 events or 30 s without a read before a consumer is cut off.
   */
  public static FeedSettings of(Duration retention, Duration maxClockOffset) {
    return new FeedSettings(
        retention,
        maxClockOffset.multipliedBy(2),
        Duration.ofMillis(100),
        Duration.ofSeconds(2),
        Duration.ofSeconds(3),
        10_000,
        Duration.ofSeconds(30));
  }

  /** These settings with {@code maxQueuedEvents} and {@code maxStall}. */
  public FeedSettings withConsumerBounds(int maxQueuedEvents, Duration maxStall) {
    return new FeedSettings(
        retention, margin, pollInterval, progressInterval, memberGrace, maxQueuedEvents, maxStall);
  }
}
