package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuorumTest {
  @ParameterizedTest(name = "majority of {1} is {0}")
  @CsvSource({"1, 1", "2, 2", "2, 3", "3, 4", "3, 5", "4, 6", "4, 7"})
  void majorityIsMoreThanHalf(int ack, int from) {
    assertThat(Quorum.majorityOf(from)).isEqualTo(ack);
    assertThat(Quorum.majority(from)).isEqualTo(new Quorum(ack, from));
  }

  @Test
  void anyAckUpToFromIsAccepted() {
    assertThat(new Quorum(1, 3)).hasToString("1/3");
    assertThat(new Quorum(3, 3)).hasToString("3/3");
  }

  @Test
  void ackAboveFromIsRefused() {
    assertThatThrownBy(() -> new Quorum(3, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ack (3)")
        .hasMessageContaining("from (2)");
  }

  @Test
  void nonPositiveNumbersAreRefused() {
    assertThatThrownBy(() -> new Quorum(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Quorum(1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Quorum(-1, 3)).isInstanceOf(IllegalArgumentException.class);
  }
}
