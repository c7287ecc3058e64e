package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageMeterTest {
  @Test
  void usageIsTheDifferenceOfTwoSamplesOverEveryNodeAndTheGenerator(@TempDir Path proc)
      throws IOException {
    node(proc, 10, 100, 50, Map.of(10L, 1000L, 11L, 500L));
    node(proc, 20, 200, 0, Map.of(20L, 10L));
    // Thread CPU: node 10's kvorum-io-11 thread and node 20's kvorum-io-20 one.
    ProcFsTest.task(proc, 10, 11, "kvorum-io-1", 40, 0, 500, 0);
    ProcFsTest.task(proc, 20, 20, "kvorum-io-2", 100, 0, 10, 0);
    generator(proc, 30, 40, 0, 0);
    UsageMeter meter = new UsageMeter(new ProcFs(proc, 100), List.of(10L, 20L), 30);
    UsageMeter.Sample before = meter.sample();

    // node 10: 1.0 s more CPU, thread 11 +300 switches, thread 12 born with 20;
    // node 20: 0.5 s more; the generator 0.2 s itself and 0.3 s in a child it waited for.
    node(proc, 10, 180, 70, Map.of(10L, 1000L, 11L, 800L, 12L, 20L));
    node(proc, 20, 250, 0, Map.of(20L, 10L));
    ProcFsTest.task(proc, 10, 11, "kvorum-io-1", 90, 10, 800, 0);
    ProcFsTest.task(proc, 10, 12, "C2 CompilerThre", 30, 0, 20, 0);
    ProcFsTest.task(proc, 20, 20, "kvorum-io-2", 120, 0, 10, 0);
    generator(proc, 30, 60, 0, 30);
    Usage usage = UsageMeter.between(before, meter.sample());

    assertThat(usage.nodeCpuNanos()).isEqualTo(1_500_000_000L);
    assertThat(usage.generatorCpuNanos()).isEqualTo(500_000_000L);
    assertThat(usage.nodeContextSwitches()).isEqualTo(320);
    assertThat(usage.nodeMicrosPer(1000)).isEqualTo(1500.0);
    assertThat(usage.allMicrosPer(1000)).isEqualTo(2000.0);
    assertThat(usage.switchesPer(1000)).isEqualTo(0.32);
    // kvorum-io: node 10's thread +0.6 s and +300 switches, node 20's +0.2 s; C2 born with 0.3 s.
    assertThat(usage.pools())
        .containsEntry("kvorum-io", new PoolUsage(800_000_000L, 300))
        .containsEntry("C2", new PoolUsage(300_000_000L, 20));
    assertThat(usage.jit()).isEqualTo(new PoolUsage(300_000_000L, 20));
  }

  @Test
  void idleCpuIsEachNodesShareOfOneCore() {
    UsageMeter.Sample before =
        new UsageMeter.Sample(0, List.of(0L, 100L), List.of(Map.of(), Map.of()), 0);
    UsageMeter.Sample after =
        new UsageMeter.Sample(
            2_000_000_000L, List.of(90_000_000L, 20_100L), List.of(Map.of(), Map.of()), 0);

    assertThat(UsageMeter.corePercentByNode(before, after)).containsExactly(4.5, 0.001);
  }

  @Test
  void aThreadThatDiedIsMissingAndARecycledIdCountsAsNew() {
    UsageMeter.Sample before =
        new UsageMeter.Sample(
            0,
            List.of(0L),
            List.of(Map.of(1L, thread("a-1", 500, 100), 2L, thread("b", 9, 900))),
            0);
    // Thread 2 died (its switches are lost), thread 1's id went to a new thread with 30.
    UsageMeter.Sample after =
        new UsageMeter.Sample(1_000, List.of(0L), List.of(Map.of(1L, thread("a-2", 40, 30))), 0);

    Usage usage = UsageMeter.between(before, after);
    assertThat(usage.nodeContextSwitches()).isEqualTo(30);
    assertThat(usage.pools()).containsOnlyKeys("a").containsEntry("a", new PoolUsage(40, 30));
  }

  @Test
  void aThreadRenamedUnderTheSameIdCountsAsNew() {
    UsageMeter.Sample before =
        new UsageMeter.Sample(0, List.of(0L), List.of(Map.of(1L, thread("old", 10, 10))), 0);
    UsageMeter.Sample after =
        new UsageMeter.Sample(1_000, List.of(0L), List.of(Map.of(1L, thread("new", 50, 50))), 0);

    assertThat(UsageMeter.between(before, after).pool("new")).isEqualTo(new PoolUsage(50, 50));
  }

  private static ProcFs.ThreadUsage thread(String name, long cpuNanos, long switches) {
    return new ProcFs.ThreadUsage(name, cpuNanos, switches);
  }

  @Test
  void perRequestFiguresOfARunWithoutRequestsAreNotANumber() {
    Usage usage = new Usage(Duration.ofSeconds(1), 10, 10, 10);

    assertThat(usage.nodeMicrosPer(0)).isNaN();
    assertThat(usage.nodeCores()).isEqualTo(1e-8);
  }

  private static void node(Path proc, long pid, long utime, long stime, Map<Long, Long> switches)
      throws IOException {
    generator(proc, pid, utime, stime, 0);
    for (Map.Entry<Long, Long> thread : switches.entrySet()) {
      ProcFsTest.task(proc, pid, thread.getKey(), "thread", 0, 0, thread.getValue(), 0);
    }
  }

  private static void generator(Path proc, long pid, long utime, long stime, long cutime)
      throws IOException {
    Files.createDirectories(proc.resolve(String.valueOf(pid)));
    Files.writeString(
        proc.resolve(pid + "/stat"), ProcFsTest.stat(pid, "java", utime, stime, cutime, 0));
  }
}
