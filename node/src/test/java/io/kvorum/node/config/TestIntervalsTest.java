package io.kvorum.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TestIntervalsTest {
  @Test
  void unsetLeavesTheNodesOwnInterval() {
    assertThat(TestIntervals.from(TestIntervals.HINT_REPLAY, Map.<String, String>of()::get))
        .isEmpty();
    assertThat(TestIntervals.from(TestIntervals.GOSSIP, Map.of(TestIntervals.GOSSIP, " ")::get))
        .isEmpty();
  }

  @Test
  void aDurationIsTaken() {
    assertThat(
            TestIntervals.from(
                TestIntervals.HINT_REPLAY, Map.of(TestIntervals.HINT_REPLAY, "500ms")::get))
        .isEqualTo(Optional.of(Duration.ofMillis(500)));
  }

  @Test
  void anythingElseIsRefusedNamingTheProperty() {
    for (String bad : new String[] {"0s", "soon", "-1s"}) {
      assertThatThrownBy(
              () ->
                  TestIntervals.from(
                      TestIntervals.BREAKER_OPEN_FOR,
                      Map.of(TestIntervals.BREAKER_OPEN_FOR, bad)::get))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("-D" + TestIntervals.BREAKER_OPEN_FOR + " '" + bad + "'");
    }
  }
}
