package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.ALL;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.get;
import static io.kvorum.node.sim.check.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class AvailabilityTest {
  @Test
  void aReadOrWriteAskingFewerThanItsReplicasMustBeAnswered() {
    ClientOp unanswered = op(OpKind.PUT, TWO, 0, 5).value(bytes("a")).unknown();
    Recording recording = Recording.recorder().op(get(TWO, 0, 1, "a", 1)).op(unanswered).build();

    assertThat(new Availability(Set.of()).check(recording))
        .extracting(Violation::message)
        .singleElement()
        .asString()
        .startsWith("PUT k 2/3 by client 1 via n1 [0.000000s, 0.005000s] value 'a' -> UNKNOWN")
        .endsWith(
            "got no answer though at most one zone was lost and it asked 2 of 3 replicas,"
                + " each in a zone of its own");
  }

  @Test
  void allReplicasConditionalWritesAndOperationsWhoseNodeWentDownMayGoUnanswered() {
    ClientOp throughACrashedNode = op(OpKind.DELETE, TWO, 0, 5).unknown();
    Recording recording =
        Recording.recorder()
            .op(op(OpKind.GET, ALL, 0, 5).unknown())
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 0, 5).value(bytes("b")).unknown())
            .op(throughACrashedNode)
            .build();

    assertThat(new Availability(Set.of(throughACrashedNode)).check(recording)).isEmpty();
  }
}
