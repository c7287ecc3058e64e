package io.kvorum.node.consensus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PaxosBackOffTest {
  private static long millis(PaxosBackOff backOff, int attempt, double random) {
    return TimeUnit.NANOSECONDS.toMillis(backOff.pauseNanos(attempt, () -> random));
  }

  @Test
  void theDefaultDoublesFromTwoMillisecondsToAHundredJitteredByHalfEitherWay() {
    PaxosBackOff backOff = PaxosBackOff.parse("2,2.0,100");
    assertThat(millis(backOff, 1, 0.5)).isEqualTo(2);
    assertThat(millis(backOff, 3, 0.5)).isEqualTo(8);
    assertThat(millis(backOff, 20, 0.5)).isEqualTo(100);
    assertThat(millis(backOff, 20, 0.0)).isEqualTo(50);
    assertThat(millis(backOff, 20, 0.999)).isEqualTo(149);
  }

  @Test
  void theSwitchNamesItsFormWhenMalformed() {
    assertThatThrownBy(() -> PaxosBackOff.parse("5,2.0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kvorum.paxos.backOff is FIRST_MS,FACTOR,MAX_MS");
  }
}
