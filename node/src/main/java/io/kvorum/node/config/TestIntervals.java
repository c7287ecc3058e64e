package io.kvorum.node.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Test only: intervals a node otherwise keeps to itself, shortened so that a test waiting for a
 * hint replay, a gossip tick, a membership change's settle time or a breaker to close waits less.
 * In-process tests set them in the {@link NodeConfig} they build; a process or a container is given
 * them as system properties (e.g. {@code -Dkvorum.test.hint-replay-interval=1s} in {@code
 * JAVA_TOOL_OPTIONS}), read once as its configuration is built from its flags. No flag sets them
 * and production sets none: unset, the node keeps its own intervals. Nothing here logs: the
 * configuration is read before the log format is chosen, and the first logger fixes it; the node
 * says which it runs with once it starts ({@link #inUse}).
 */
public final class TestIntervals {
  /** {@link NodeConfig.Replication#replayInterval()}. */
  public static final String HINT_REPLAY = "kvorum.test.hint-replay-interval";

  /** {@link NodeConfig.Replication#breakerOpenFor()}. */
  public static final String BREAKER_OPEN_FOR = "kvorum.test.breaker-open-for";

  /** {@link NodeConfig.Membership#gossipInterval()}. */
  public static final String GOSSIP = "kvorum.test.gossip-interval";

  /** {@link NodeConfig.Membership#settleTime()}. */
  public static final String SETTLE_TIME = "kvorum.test.settle-time";

  /** {@link NodeConfig.Storage#feedStall()}. */
  public static final String FEED_STALL = "kvorum.test.feed-stall";

  private TestIntervals() {}

  /**
   * The interval system property {@code name} gives, if set.
   *
   * @throws ConfigException if it is not a positive duration
   */
  static Optional<Duration> fromSystemProperty(String name) {
    return from(name, System::getProperty);
  }

  static Optional<Duration> from(String name, UnaryOperator<String> properties) {
    String value = properties.apply(name);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    Duration interval = FlagValues.duration("-D" + name, value);
    if (interval.isNegative()) {
      throw new ConfigException("-D" + name, value, "must be positive");
    }
    return Optional.of(interval);
  }

  /** The intervals {@code config} shortens, for a warning in the node's log; empty if none. */
  public static Optional<String> inUse(NodeConfig config) {
    List<String> set = new ArrayList<>();
    config.membership().gossipInterval().ifPresent(t -> set.add("gossip every " + t));
    config.membership().settleTime().ifPresent(t -> set.add("membership changes settle for " + t));
    config.replication().replayInterval().ifPresent(t -> set.add("hint replay every " + t));
    config.replication().breakerOpenFor().ifPresent(t -> set.add("breakers open for " + t));
    config.storage().feedStall().ifPresent(t -> set.add("feed consumers cut off after " + t));
    return set.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", set));
  }
}
