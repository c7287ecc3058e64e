package io.kvorum.node.server;

import io.kvorum.node.config.ConfigException;
import io.kvorum.node.core.DurationFormat;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The wall clock a node starts with: the system's, or one shifted on purpose by a test. */
public final class WallClock {
  private static final Logger log = LoggerFactory.getLogger(WallClock.class);

  /**
   * Test only: shifts this node's wall clock by a duration ({@code 3600s}, {@code -5s}), so that a
   * process test can run a node whose clock is wrong. Never set in production.
   */
  public static final String SKEW_PROPERTY = "kvorum.clock.skew";

  private WallClock() {}

  /**
   * The system's wall clock (Unix milliseconds), shifted as {@value #SKEW_PROPERTY} says.
   *
   * @throws ConfigException if the property is not a duration
   */
  public static LongSupplier fromSystemProperties() {
    String skew = System.getProperty(SKEW_PROPERTY, "").trim();
    if (skew.isEmpty()) {
      return System::currentTimeMillis;
    }
    boolean behind = skew.startsWith("-");
    long millis;
    try {
      millis = DurationFormat.parse(behind ? skew.substring(1) : skew).toMillis();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("-D" + SKEW_PROPERTY, skew, e.getMessage());
    }
    long shift = behind ? -millis : millis;
    log.warn("TEST ONLY: this node's wall clock is shifted by {} ms (-D{})", shift, SKEW_PROPERTY);
    return () -> System.currentTimeMillis() + shift;
  }
}
