package io.kvorum.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeadlineTest {
  private static final Headline.Setup THREE = new Headline.Setup(3, 2, 3, 1024, true);
  private static final List<Run> NGINX =
      List.of(
          Runs.run("nginx@20000", 20_000, 10, 800, 0),
          Runs.run("nginx@40000", 40_000, 10, 1_100, 0),
          Runs.run("nginx@80000", 80_000, 10, 12_000, 0));

  private static JarResults jar(String label, Sweep put, Run saturation) {
    return new JarResults(
        label,
        Path.of(label + ".jar"),
        Runs.run("load", 0, 10, 1_000, 0),
        List.of(put),
        saturation);
  }

  private static Sweep held(String phase, Run run) {
    return new Sweep(phase, List.of(), run, List.of());
  }

  private static String row(String table, String target) {
    return table.lines().filter(l -> l.startsWith("| " + target)).findFirst().orElseThrow();
  }

  @Test
  void aRateHeldSixtySecondsAtTheP99PassesAndIsComparedWithNginx() {
    JarResults jar =
        jar("after", held("put", Runs.run("put@20000 for 60s", 20_000, 60, 7_100, 0)), null);

    String table = Headline.targetTable(THREE, List.of(jar), NGINX);

    assertThat(row(table, "3 nodes: PUT"))
        .contains("20,000/s held 60 s, p99 7.10 ms, 50% of nginx: **pass**")
        .endsWith("| 40,000/s (p99 1.10 ms) |");
    assertThat(row(table, "3 nodes: GET")).contains("| not run |");
    assertThat(row(table, "3 nodes: CPU")).contains("| not run | – |");
  }

  @Test
  void aLowerRateIsAMissWithHowFarItFellShort() {
    JarResults jar =
        jar("before", held("put", Runs.run("put@5000 for 60s", 5_000, 60, 4_000, 0)), null);

    assertThat(row(Headline.targetTable(THREE, List.of(jar), List.of()), "3 nodes: PUT"))
        .contains("5,000/s held 60 s, p99 4.00 ms: miss (25% of it)")
        .endsWith("| not measured (`--calibrate`) |");
  }

  @Test
  void aHoldShorterThanSixtySecondsCannotPass() {
    JarResults jar =
        jar("quick", held("put", Runs.run("put@20000 for 20s", 20_000, 20, 3_000, 0)), null);

    assertThat(row(Headline.targetTable(THREE, List.of(jar), NGINX), "3 nodes: PUT"))
        .contains("held 20 s", "held too short a time to tell");
  }

  @Test
  void aPhaseWithNothingHeldQuotesItsLastTry() {
    Run failed = Runs.run("put@20000 for 60s", 20_000, 60, 250_000, 12);
    JarResults jar = jar("before", new Sweep("put", List.of(failed), null, List.of()), null);

    assertThat(row(Headline.targetTable(THREE, List.of(jar), NGINX), "3 nodes: PUT"))
        .contains("none held (20,000/s: p99 250 ms, errors 12 timeout): miss");
  }

  @Test
  void theCpuTargetIsAllProcessesCpuPerWriteAtSaturation() {
    Run cheap = Runs.run("saturation", 10_000, 20, 5_000, 0);
    JarResults jar = jar("after", held("put", Runs.run("put@1000 for 60s", 1000, 60, 1, 0)), cheap);

    assertThat(row(Headline.targetTable(THREE, List.of(jar), NGINX), "3 nodes: CPU"))
        .contains("60.0 µs (nodes 50.0) at 10,000 writes/s: **pass**");
  }

  @Test
  void severalJarsGetAColumnEachAndARowEachInTheComparison() {
    JarResults before =
        jar("before", held("put", Runs.run("put@5000 for 60s", 5_000, 60, 4_000, 0)), null);
    JarResults after =
        jar("after", held("put", Runs.run("put@20000 for 60s", 20_000, 60, 7_000, 0)), null);

    String table = Headline.targetTable(THREE, List.of(before, after), NGINX);
    String comparison = Headline.comparison(List.of(before, after), 10);

    assertThat(table.lines().findFirst().orElseThrow())
        .isEqualTo("| target | before | after | nginx `return 204`, same run |");
    assertThat(comparison.lines().filter(l -> l.startsWith("| put |")))
        .containsExactly(
            "| put | before | 5000 | 5000 | 1.00 | 4.00 | 4.00 | 0 | 50.0 | 60.0 | 3.00 | 2: max"
                + " 4.50, total 6.00 ms |",
            "| put | after | 20000 | 20000 | 1.00 | 7.00 | 7.00 | 0 | 50.0 | 60.0 | 3.00 | 2: max"
                + " 4.50, total 6.00 ms |");
  }

  @Test
  void aPhaseWithNothingHeldIsComparedByItsLastTry() {
    Run failed = Runs.run("put@20000 for 60s", 20_000, 60, 250_000, 0);
    JarResults jar = jar("before", new Sweep("put", List.of(failed), null, List.of()), null);

    assertThat(Headline.comparison(List.of(jar), 10))
        .contains("| put | before | none (20000 failed) | 20000 | 1.00 | 250 |");
  }

  @Test
  void nginxsCeilingIsItsHighestRateAtTheP99AndMarkedWhenAtTheTopOfItsLadder() {
    assertThat(Headline.ceiling(NGINX, 10)).isEqualTo(40_000);
    assertThat(Headline.ceiling(NGINX, 20)).isEqualTo(80_000);
    JarResults jar = jar("a", held("put", Runs.run("put@1000 for 60s", 1000, 60, 1, 0)), null);
    assertThat(
            Headline.targetTable(
                new Headline.Setup(1, 1, 1, 1024, true), List.of(jar), NGINX.subList(0, 2)))
        .contains("| ≥ 40,000/s (p99 1.10 ms) |");
  }

  @Test
  void setupsTheIssueStatesNoTargetsForSayWhyAndAMissingHeapIsNoted() {
    assertThat(Headline.targetTable(new Headline.Setup(5, 3, 5, 1024, true), List.of(), NGINX))
        .contains("this run's setup has none");
    assertThat(Headline.targetTable(new Headline.Setup(3, 2, 3, 1024, false), List.of(), NGINX))
        .contains("did not run with `-Xmx1g`");
  }
}
