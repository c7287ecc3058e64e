package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.get;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeadlinesTest {
  private final Deadlines checker = new Deadlines(ms(1_000), ms(50));

  @Test
  void acceptsAnswersWithinTheTimeoutAndSlack() {
    Recording recording =
        Recording.recorder()
            .op(get(TWO, 0, 1_050, "a", 10))
            .op(op(OpKind.PUT, TWO, 0, 1_000).value(Fixtures.bytes("b")).unknown())
            .op(ClientOp.builder(OpKind.RANGE, K).by(1, N1).between(0, ms(60_000)).ok(null))
            .build();

    assertThat(checker.check(recording)).as("ranges stream as long as they need").isEmpty();
  }

  @Test
  void reportsAnOperationOverItsDeadline() {
    Recording recording =
        Recording.recorder().op(op(OpKind.DELETE, TWO, 2_000, 3_051).unknown()).build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .isEqualTo(
            "the DELETE k 2/3 by client 1 via n1 [2.000000s, 3.051000s] -> UNKNOWN took"
                + " 1.051000s, over the request timeout 1.000000s plus the slack 0.050000s");
  }

  @Test
  void rejectsNonsenseLimits() {
    assertThatThrownBy(() -> new Deadlines(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
