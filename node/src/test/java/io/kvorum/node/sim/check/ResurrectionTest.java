package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N2;
import static io.kvorum.node.sim.check.Fixtures.ONE;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.converged;
import static io.kvorum.node.sim.check.Fixtures.delete;
import static io.kvorum.node.sim.check.Fixtures.end;
import static io.kvorum.node.sim.check.Fixtures.get;
import static io.kvorum.node.sim.check.Fixtures.getAbsent;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResurrectionTest {
  private final Resurrection checker = new Resurrection();

  /** A value written, then deleted; the deleted value stays dead to every later quorum read. */
  private static Recording.Recorder putThenDelete() {
    return Fixtures.appliedEverywhere(2, value("a", 10), tombstone(12))
        .op(put(TWO, 1, 2, "a", 10))
        .op(delete(TWO, 3, 4, 12));
  }

  @Test
  void acceptsReadsThatRespectAnAcknowledgedDelete() {
    Recording recording =
        putThenDelete()
            .op(get(TWO, 3, 5, "a", 10))
            .op(get(ONE, 5, 6, "a", 10))
            .op(getAbsent(TWO, 5, 6))
            .end(converged(tombstone(12)))
            .build();

    assertThat(checker.check(recording))
        .as("a read concurrent with the delete, and a read whose quorum need not overlap it")
        .isEmpty();
  }

  @Test
  void reportsAValueLiveAtTheEndAfterAnAcknowledgedDelete() {
    Recording recording = putThenDelete().end(end(value("a", 10), null, value("a", 10))).build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("the value @10.0 'a' is live at the end although DELETE k 2/3")
        .contains("the owners hold n1 @10.0 'a', n2 none, n3 @10.0 'a'");
  }

  @Test
  void reportsAQuorumReadOfADeletedValue() {
    Recording recording =
        putThenDelete().op(get(TWO, 5, 6, "a", 10)).end(converged(tombstone(12))).build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("the GET k 2/3 by client 1 via n1 [0.005000s, 0.006000s] -> OK @10.0 'a'")
        .contains("returned a value older than the acknowledged DELETE k 2/3")
        .contains("their quorums must overlap");
  }

  @Test
  void reportsAnyReadOfADeletedValueOnceTheRunSettled() {
    Key other = Key.utf8("l");
    ClientOp range =
        ClientOp.builder(OpKind.RANGE, K)
            .by(2, N2)
            .between(ms(20), ms(21))
            .entries(
                List.of(
                    new RangeEntry(K, v(10), bytes("a")), new RangeEntry(other, v(9), bytes("b"))))
            .ok(null);
    Recording recording =
        putThenDelete()
            .op(get(ONE, 5, 6, "a", 10))
            .op(get(ONE, 20, 21, "a", 10))
            .op(range)
            .end(converged(tombstone(12)))
            .settledAt(ms(10))
            .build();

    assertThat(checker.check(recording))
        .extracting(Violation::message)
        .satisfiesExactly(
            get ->
                assertThat(get)
                    .startsWith("the GET k 1/3 by client 1 via n1 [0.020000s")
                    .endsWith("(the run had settled at 0.010000s)"),
            entry ->
                assertThat(entry)
                    .startsWith("the RANGE k.. by client 2 via n2")
                    .contains("called after the run settled at 0.010000s, returned k@10.0='a'"));
  }
}
