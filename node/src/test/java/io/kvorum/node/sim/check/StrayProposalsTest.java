package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N2;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StrayProposalsTest {
  /** w chosen at version 10; u, a compare-and-set on it, unanswered (accepted by one acceptor). */
  private static Recording.Recorder strayAfterW() {
    return Fixtures.appliedEverywhere(5, value("w", 10))
        .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 6).value(bytes("w")).ok(v(10)))
        .op(op(OpKind.PUT_IF_MATCH, TWO, 20, 21).expected(v(10)).value(bytes("u")).unknown());
  }

  /** Issue 26's schedule: a 412 decided w again; u, its state forgotten, came back later. */
  @Test
  void anUnansweredWriteAppliedAfterARoundThatDecidedWithoutItIsAViolation() {
    Recording recording =
        strayAfterW()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 30, 31).value(bytes("x")).refused(v(10)))
            .applied(K, value("u", 20), N2, ms(50))
            .build();

    assertThat(new StrayProposals().check(recording))
        .extracting(Violation::message)
        .singleElement()
        .asString()
        .contains("value 'u'")
        .contains("took effect at 0.050000s")
        .contains("PUT_IF_ABSENT");
  }

  @Test
  void anUnansweredWriteALaterRoundCompletedIsFine() {
    Recording recording =
        strayAfterW()
            // The round found u and completed it: the 412 names u's version.
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 30, 31).value(bytes("x")).refused(v(20)))
            .applied(K, value("u", 20), N2, ms(30))
            .build();

    assertThat(new StrayProposals().check(recording)).isEmpty();
  }

  @Test
  void onlyRoundsCalledAfterTheClientGaveUpCount() {
    Recording recording =
        strayAfterW()
            // Called while u's round may still have run: u may come after it.
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 20, 21).value(bytes("x")).refused(v(10)))
            .applied(K, value("u", 20), N2, ms(50))
            .build();

    assertThat(new StrayProposals().check(recording)).isEmpty();
  }
}
