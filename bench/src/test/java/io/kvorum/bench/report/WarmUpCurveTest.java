package io.kvorum.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.bench.measure.PoolUsage;
import io.kvorum.bench.measure.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmUpCurveTest {
  /** A curve of 10 s windows at 1,000/s with these node µs per request (and a tenth of it JIT). */
  static WarmUpCurve curve(double... micros) {
    List<WarmUpCurve.Window> windows = new ArrayList<>();
    for (int i = 0; i < micros.length; i++) {
      long cpu = (long) (micros[i] * 1e3 * 10_000);
      Usage usage =
          new Usage(
              Duration.ofSeconds(10), cpu, 0, 30_000, Map.of("C2", new PoolUsage(cpu / 10, 5)));
      windows.add(new WarmUpCurve.Window(Duration.ofSeconds(10L * i), usage, 10_000));
    }
    return new WarmUpCurve(
        1000,
        windows,
        windows.get(windows.size() - 1).usage(),
        10_000,
        Runs.run("warm-up@1000", 1000, 10L * micros.length, 20_000, 0));
  }

  @Test
  void theSteadyValueIsTheMeanOfTheLastThird() {
    WarmUpCurve curve = curve(2000, 1500, 900, 700, 690, 700, 650, 660, 670);

    assertThat(curve.steadyFrom()).isEqualTo(6);
    assertThat(curve.steadyMicros()).isCloseTo(660, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void theWarmUpEndsWhereEveryLaterWindowStaysWithinTwentyPercent() {
    // Steady 660: 900 is 36% off, 700 and everything after within 20%.
    WarmUpCurve curve = curve(2000, 1500, 900, 700, 690, 700, 650, 660, 670);

    assertThat(curve.warmedUpAfter()).contains(Duration.ofSeconds(30));
  }

  @Test
  void aWindowWithinTheBoundBeforeALaterOneOutsideItDoesNotCount() {
    // 700 at 10 s is within 20% of 660, but 1200 at 20 s is not: warm from 30 s.
    WarmUpCurve curve = curve(2000, 700, 1200, 700, 690, 700, 650, 660, 670);

    assertThat(curve.warmedUpAfter()).contains(Duration.ofSeconds(30));
  }

  @Test
  void aCurveWarmFromItsFirstWindowWarmsUpAtZero() {
    assertThat(curve(100, 110, 100).warmedUpAfter()).contains(Duration.ZERO);
  }

  @Test
  void aCurveWhoseLastWindowIsOffHasNotSettled() {
    assertThat(WarmUpCurve.settledFrom(List.of(100.0, 100.0, 200.0), 120)).isEqualTo(-1);
    assertThat(curve(100, 100, 100, 100, 100, 300).warmedUpAfter()).isEmpty();
  }

  @Test
  void theWindowsGiveCpuJitAndSwitchesPerRequest() {
    WarmUpCurve.Window first = curve(2000, 700, 700).windows().get(0);

    assertThat(first.nodeMicros()).isEqualTo(2000);
    assertThat(first.jitMicros()).isEqualTo(200);
    assertThat(first.switches()).isEqualTo(3);
  }

  @Test
  void theReportsCurveMarksWhereTheSteadyPartBegins() {
    String table = WarmUpSection.curveTable(curve(2000, 1500, 900, 700, 690, 700));

    assertThat(table)
        .contains("| 0–10 s | 2000 | 200 | 3.00 |")
        .contains("| 40–50 s (steady from here) | 690 | 69.0 | 3.00 |");
    assertThat(WarmUpSection.summary(curve(2000, 1500, 900, 700, 690, 700)))
        .contains("steady **695 µs**")
        .contains("**warm-up time 30 s**");
  }
}
