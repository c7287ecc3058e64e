package io.kvorum.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.bench.measure.PoolUsage;
import io.kvorum.bench.measure.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolTableTest {
  private static Usage usage(Map<String, PoolUsage> pools) {
    long cpu = pools.values().stream().mapToLong(PoolUsage::cpuNanos).sum();
    return new Usage(Duration.ofSeconds(10), cpu, 0, 0, pools);
  }

  @Test
  void eachPoolIsARowOfCpuAndSwitchesPerRequestLargestFirstSmallOnesSummedAsOther() {
    // 1,000 requests: kvorum-io 400 µs and 3 switches each, C2 200 µs, two pools of 1 µs.
    Usage usage =
        usage(
            Map.of(
                "kvorum-io", new PoolUsage(400_000_000L, 3000),
                "C2", new PoolUsage(200_000_000L, 100),
                "VM Thread", new PoolUsage(1_000_000L, 10),
                "Signal Dispatch", new PoolUsage(1_000_000L, 0)));

    String table = PoolTable.table(List.of(new PoolTable.Column("1000/s", usage, 1000)));

    assertThat(table.lines().toList())
        .containsExactly(
            "| pool | 1000/s |",
            "| --- | ---: |",
            "| kvorum-io | 400 (3.00) |",
            "| C2 | 200 (0.10) |",
            "| other | 2.00 (0.01) |",
            "| **all live threads** | **602 (3.11)** |");
  }

  @Test
  void aPoolLargeInOneColumnIsShownInEvery() {
    Usage cold = usage(Map.of("C2", new PoolUsage(500, 0), "io", new PoolUsage(500, 0)));
    Usage warm = usage(Map.of("C2", new PoolUsage(1, 0), "io", new PoolUsage(999, 0)));

    assertThat(
            PoolTable.rows(
                List.of(new PoolTable.Column("a", cold, 1), new PoolTable.Column("b", warm, 1))))
        .containsOnlyKeys("C2", "io");
  }

  @Test
  void withoutRequestsTheTableShowsSharesOfACoreAndSwitchesASecond() {
    // 10 s: 0.3 s of CPU is 3% of a core; 500 switches are 50 a second.
    Usage idle = usage(Map.of("kvorum-timer", new PoolUsage(300_000_000L, 500)));

    assertThat(PoolTable.table(List.of(new PoolTable.Column("idle", idle, 0))))
        .contains("| kvorum-timer | 3.00 (50.0) |");
  }
}
