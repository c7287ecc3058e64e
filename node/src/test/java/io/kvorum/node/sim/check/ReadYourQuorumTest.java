package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.ALL;
import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.ONE;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.get;
import static io.kvorum.node.sim.check.Fixtures.getAbsent;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Record;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadYourQuorumTest {
  private final ReadYourQuorum checker = new ReadYourQuorum();

  @Test
  void acceptsReadsThatSeeEveryQuorumWriteBeforeThem() {
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10), value("b", 12))
            .op(put(TWO, 1, 2, "a", 10))
            .op(get(TWO, 3, 4, "a", 10))
            .op(op(OpKind.PUT, TWO, 5, 9).value(bytes("b")).unknown())
            .op(get(TWO, 6, 7, "b", 12))
            .op(get(ONE, 6, 7, "a", 10))
            .op(get(ALL, 1, 3, "a", 10))
            .build();

    assertThat(checker.check(recording))
        .as("an unknown write read, a 1/3 read that misses it, a read concurrent with a write")
        .isEmpty();
  }

  @Test
  void reportsAQuorumReadThatMissesAQuorumWriteBeforeIt() {
    Recording recording =
        Fixtures.appliedEverywhere(1, value("old", 5), value("a", 10))
            .op(put(TWO, 0, 1, "old", 5))
            .op(put(TWO, 1, 2, "a", 10))
            .op(get(TWO, 3, 4, "old", 5))
            .build();

    assertThat(checker.check(recording))
        .singleElement()
        .satisfies(
            violation -> {
              assertThat(violation.checker()).isEqualTo("ReadYourQuorum");
              assertThat(violation.message())
                  .isEqualTo(
                      "the GET k 2/3 by client 1 via n1 [0.003000s, 0.004000s] -> OK @5.0 'old'"
                          + " returned the older @5.0: the acknowledged PUT k 2/3 by client 1"
                          + " via n1 [0.001000s, 0.002000s] value 'a' -> OK @10.0 returned"
                          + " before it was called, and their quorums must overlap");
            });
  }

  @Test
  void allowsAnAbsentReadOnlyAfterADeleteOrAnExpiry() {
    Record expiring = Record.value(v(20), bytes("e"), 1_000, 3);
    Recording.Recorder recorder =
        Fixtures.appliedEverywhere(2, value("a", 10))
            .applied(K, tombstone(12), N1, ms(5))
            .applied(K, expiring, N1, ms(8))
            .op(put(TWO, 1, 2, "a", 10))
            .op(op(OpKind.DELETE, TWO, 3, 9).unknown())
            .op(getAbsent(TWO, 3, 4))
            .op(op(OpKind.PUT, TWO, 6, 7).value(bytes("e")).ok(v(20)))
            .op(getAbsent(TWO, 5, 6))
            .op(getAbsent(TWO, 8, 9));

    assertThat(checker.check(recorder.build()))
        .as("the read at 3 ms before any tombstone; at 5 ms after one; at 8 ms after a TTL")
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .startsWith("the GET k 2/3 by client 1 via n1 [0.003000s, 0.004000s] -> OK absent")
        .contains("read absent though no replica had applied a tombstone or an expiring value");
  }

  @Test
  void reportsPhantomValues() {
    ClientOp range =
        ClientOp.builder(OpKind.RANGE, K)
            .by(3, N1)
            .between(ms(5), ms(6))
            .entries(List.of(new RangeEntry(K, v(11), bytes("a"))))
            .ok(null);
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10))
            .applied(K, value("late", 30), N1, ms(9))
            .op(put(TWO, 1, 2, "a", 10))
            .op(op(OpKind.PUT, TWO, 3, 4).value(bytes("never")).unknown())
            .op(op(OpKind.PUT, TWO, 3, 4).value(bytes("late")).unknown())
            .op(get(ONE, 5, 6, "ghost", 10))
            .op(get(ONE, 5, 6, "never", 13))
            .op(get(ONE, 5, 6, "late", 30))
            .op(range)
            .build();

    assertThat(checker.check(recording))
        .extracting(Violation::message)
        .satisfiesExactly(
            ghost ->
                assertThat(ghost).endsWith("returned @10.0 'ghost', a value no client wrote to k"),
            never ->
                assertThat(never)
                    .endsWith("a value no replica ever applied at that version (applied nowhere)"),
            late ->
                assertThat(late)
                    .endsWith("a value no replica had applied yet (the first did at 0.009000s)"),
            entry ->
                assertThat(entry)
                    .startsWith("the RANGE k.. by client 3")
                    .endsWith(
                        "returned k@11.0='a', a value no replica ever applied at that version"
                            + " (applied at [10.0])"));
  }
}
