package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.converged;
import static io.kvorum.node.sim.check.Fixtures.delete;
import static io.kvorum.node.sim.check.Fixtures.get;
import static io.kvorum.node.sim.check.Fixtures.getAbsent;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChecksTest {
  private final Checks checks = Checks.standard(Checks.Settings.of(ms(1_000), ms(50)));

  @Test
  void aCorrectRunHasNoViolations() {
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10), tombstone(12))
            .op(put(TWO, 1, 2, "a", 10))
            .op(get(TWO, 3, 4, "a", 10))
            .op(delete(TWO, 5, 6, 12))
            .op(getAbsent(TWO, 7, 8))
            .end(converged(tombstone(12)))
            .endMillis(5_000)
            .build();

    List<Violation> violations = checks.run(recording);

    assertThat(violations).isEmpty();
    assertThat(Report.render(7, violations, 10)).isEqualTo("seed 7: no violations");
  }

  @Test
  void aBrokenRunIsReportedByEveryCheckerConcerned() {
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10), tombstone(12))
            .op(put(TWO, 1, 2, "a", 10))
            .op(delete(TWO, 5, 6, 12))
            .op(get(TWO, 7, 1_500, "a", 10))
            .op(op(OpKind.PUT, TWO, 9, 10).value(bytes("b")).unknown())
            .end(Fixtures.end(value("a", 10), value("a", 10), null))
            .endMillis(5_000)
            .build();

    List<Violation> violations = checks.run(recording);

    assertThat(violations)
        .extracting(Violation::checker)
        .containsExactly("LostWrites", "Resurrection", "Resurrection", "Convergence", "Deadlines");
    assertThat(Report.render(7, violations, 2))
        .startsWith(
            "seed 7: 5 violations (Convergence 1, Deadlines 1, LostWrites 1, Resurrection 2)\n"
                + "  [LostWrites] k: the acknowledged DELETE k 2/3")
        .contains("\n  [Resurrection] k: the value @10.0 'a' is live at the end")
        .endsWith("\n  … and 3 more");
  }

  @Test
  void theStandardChecksAreEveryChecker() {
    assertThat(checks.checkers())
        .extracting(Checker::name)
        .containsExactly(
            "LostWrites",
            "Resurrection",
            "ReadYourQuorum",
            "Convergence",
            "Linearizability",
            "OneVersionPerValue",
            "ChosenStaysChosen",
            "Deadlines");
  }
}
