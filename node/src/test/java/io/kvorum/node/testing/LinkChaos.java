package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Slows both directions of a link ({@link LinkFaults}) at random, anew every two milliseconds,
 * until closed: most messages pass at once, a fifth take a few milliseconds, a fifth take {@code
 * spike} (longer than a deadline, so the call fails though the message still arrives).
 */
public final class LinkChaos implements AutoCloseable {
  private final LinkFaults network;
  private final NodeId a;
  private final NodeId b;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "link-chaos");
            t.setDaemon(true);
            return t;
          });

  private LinkChaos(LinkFaults network, NodeId a, NodeId b) {
    this.network = network;
    this.a = a;
    this.b = b;
  }

  /**
   * Starts slowing the link between {@code a} and {@code b}, from dice seeded with {@code seed}.
   */
  public static LinkChaos start(LinkFaults network, NodeId a, NodeId b, Duration spike, long seed) {
    LinkChaos chaos = new LinkChaos(network, a, b);
    Random dice = new Random(seed);
    chaos.timer.scheduleWithFixedDelay(
        () -> {
          network.delay(a, b, roll(dice, spike));
          network.delay(b, a, roll(dice, spike));
        },
        0,
        2,
        TimeUnit.MILLISECONDS);
    return chaos;
  }

  private static Duration roll(Random dice, Duration spike) {
    int roll = dice.nextInt(100);
    if (roll < 60) {
      return Duration.ZERO;
    }
    return roll < 80 ? Duration.ofMillis(1 + dice.nextInt(5)) : spike;
  }

  /** Stops, and leaves the link without delay. */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    network.delay(a, b, Duration.ZERO);
    network.delay(b, a, Duration.ZERO);
  }
}
