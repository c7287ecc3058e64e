package io.kvorum.node.antientropy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RepairRateTest {
  @Test
  void sendsAQuarterSecondsWorthAtOnceThenAtTheRate() {
    AtomicLong now = new AtomicLong(0);
    RepairRate rate = new RepairRate(1000, null, now::get);

    assertThat(rate.reserve(250)).isZero();
    long wait = rate.reserve(1000);
    assertThat(wait).isEqualTo(TimeUnit.SECONDS.toNanos(1));

    now.set(TimeUnit.SECONDS.toNanos(10));
    assertThat(rate.reserve(100)).isZero();
  }
}
