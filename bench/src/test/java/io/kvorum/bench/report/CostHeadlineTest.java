package io.kvorum.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostHeadlineTest {
  private static JarResults jar(String label, List<Sweep> sweeps) {
    return new JarResults(
        label,
        Path.of(label + ".jar"),
        Runs.run("load", 0, 10, 1_000, 0),
        sweeps,
        null,
        List.of(
            new IdleCpu(IdleCpu.JUST_STARTED, List.of(4.0, 5.0), Runs.run("x", 1, 1, 1, 0).usage()),
            new IdleCpu(IdleCpu.ONCE_WARM, List.of(2.0, 3.0), Runs.run("x", 1, 1, 1, 0).usage())),
        WarmUpCurveTest.curve(2000, 1500, 900, 700, 690, 700));
  }

  private static Sweep holds(String phase, Run best, Run... runs) {
    return new Sweep(phase, List.of(), best, List.of(runs), List.of());
  }

  private static String row(String table, String measure) {
    return table.lines().filter(l -> l.startsWith("| " + measure)).findFirst().orElseThrow();
  }

  @Test
  void everyHeldRateOfEveryPhaseIsARowWithOneColumnPerJar() {
    Run put1k = Runs.run("put@1000 for 60s", 1000, 60, 4_000, 0);
    Run put4k = Runs.run("put@4000 for 60s", 4000, 60, 30_000, 0);
    Run get1k = Runs.run("get@1000 for 60s", 1000, 60, 2_000, 0);
    JarResults before = jar("before", List.of(holds("put", put1k, put1k, put4k)));
    JarResults after =
        jar("after", List.of(holds("put", put1k, put1k), holds("get", get1k, get1k)));

    String table = CostHeadline.table(List.of(before, after), List.of(), 10);

    assertThat(table).startsWith("| measure | before | after |");
    assertThat(row(table, "PUT 1,000/s"))
        .isEqualTo(
            "| PUT 1,000/s | 50.0 µs (60.0), 3.00 sw; 1.00 / 4.00 / 4.00 ms; 1,000/s; 0 errors;"
                + " pass | 50.0 µs (60.0), 3.00 sw; 1.00 / 4.00 / 4.00 ms; 1,000/s; 0 errors;"
                + " pass |");
    assertThat(row(table, "PUT 4,000/s"))
        .contains("1.00 / 30.02 / 30.02 ms")
        .endsWith("fail | – |");
    assertThat(row(table, "GET 1,000/s")).startsWith("| GET 1,000/s | – |");
  }

  @Test
  void idleAndTheWarmUpHaveTheirRows() {
    String table = CostHeadline.table(List.of(jar("j", List.of())), List.of(), 10);

    assertThat(row(table, "idle just after start"))
        .contains("4.50% of a core per node (4.00, 5.00; 9.00% together)");
    assertThat(row(table, "idle once warm")).contains("2.50% of a core per node");
    assertThat(row(table, "warm-up time")).contains("30 s at 1,000/s PUT");
    assertThat(row(table, "warm-up: node µs/req")).contains("2000 (JIT 200) → 695");
    assertThat(table).doesNotContain("saturation");
    assertThat(CostHeadline.applies(List.of(jar("j", List.of())))).isTrue();
  }
}
