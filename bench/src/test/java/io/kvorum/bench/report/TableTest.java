package io.kvorum.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TableTest {
  @Test
  void aRatePassesWithItsP99WithinTheLimitAndNoErrors() {
    assertThat(Table.passes(Runs.run("put@1000", 1000, 10, 9_990, 0).load(), 10)).isTrue();
    assertThat(Table.passes(Runs.run("put@1000", 1000, 10, 10_100, 0).load(), 10)).isFalse();
    assertThat(Table.passes(Runs.run("put@1000", 1000, 10, 2_000, 1).load(), 10)).isFalse();
  }

  @Test
  void aRowShowsTheCostPerRequestAndTheGcPauses() {
    String row = Table.row(Runs.run("put@1000", 1000, 10, 2_000, 0), "step", 10);

    assertThat(row)
        .startsWith("| step | 1000 | 1000 | 1.00 |")
        .contains("| 2.00 |", "| 50.0 | 60.0 | 3.00 | 2: max 4.50, total 6.00 ms | pass |");
    assertThat(row.split("\\|", -1))
        .hasSize(Table.header().lines().findFirst().get().split("\\|", -1).length);
  }

  @Test
  void figuresThatCannotBeKnownAreADash() {
    assertThat(Table.number(Double.NaN)).isEqualTo("–");
    assertThat(Table.number(123.4)).isEqualTo("123");
    assertThat(Table.number(1.234)).isEqualTo("1.23");
  }
}
