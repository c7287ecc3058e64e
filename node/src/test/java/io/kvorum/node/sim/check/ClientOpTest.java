package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Record;
import org.junit.jupiter.api.Test;

class ClientOpTest {
  @Test
  void rejectsOperationsTheApiCannotProduce() {
    assertThatThrownBy(() -> op(OpKind.PUT, TWO, 1, 2).value(bytes("a")).ok(null))
        .hasMessage("PUT OK expects the version it was given");
    assertThatThrownBy(() -> op(OpKind.PUT_IF_MATCH, TWO, 1, 2).value(bytes("a")).unknown())
        .hasMessage("PUT_IF_MATCH UNKNOWN expects an expected version iff If-Match");
    assertThatThrownBy(() -> op(OpKind.GET, TWO, 1, 2).value(bytes("a")).ok(null))
        .hasMessage("GET OK expects a value read with its version or neither");
    assertThatThrownBy(() -> op(OpKind.DELETE, TWO, 2, 1).unknown())
        .hasMessage("returned (1000000) before its call (2000000)");
  }

  @Test
  void anAcknowledgedWriteIsCoveredByItselfAndNewerRecordsOnly() {
    ClientOp put = op(OpKind.PUT, TWO, 1, 2).value(bytes("b")).ok(v(10));

    assertThat(put.isCoveredBy(value("b", 10))).isTrue();
    assertThat(put.isCoveredBy(value("c", 10))).as("larger bytes win a tie").isTrue();
    assertThat(put.isCoveredBy(Record.tombstone(v(10)))).as("a tombstone wins a tie").isTrue();
    assertThat(put.isCoveredBy(value("z", 11))).isTrue();
    assertThat(put.isCoveredBy(value("a", 10))).isFalse();
    assertThat(put.isCoveredBy(value("z", 9))).isFalse();
    assertThat(put.isCoveredBy(null)).isFalse();
  }
}
