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
    generator(proc, 30, 40, 0, 0);
    UsageMeter meter = new UsageMeter(new ProcFs(proc, 100), List.of(10L, 20L), 30);
    UsageMeter.Sample before = meter.sample();

    // node 10: 1.0 s more CPU, thread 11 +300 switches, thread 12 born with 20;
    // node 20: 0.5 s more; the generator 0.2 s itself and 0.3 s in a child it waited for.
    node(proc, 10, 180, 70, Map.of(10L, 1000L, 11L, 800L, 12L, 20L));
    node(proc, 20, 250, 0, Map.of(20L, 10L));
    generator(proc, 30, 60, 0, 30);
    Usage usage = UsageMeter.between(before, meter.sample());

    assertThat(usage.nodeCpuNanos()).isEqualTo(1_500_000_000L);
    assertThat(usage.generatorCpuNanos()).isEqualTo(500_000_000L);
    assertThat(usage.nodeContextSwitches()).isEqualTo(320);
    assertThat(usage.nodeMicrosPer(1000)).isEqualTo(1500.0);
    assertThat(usage.allMicrosPer(1000)).isEqualTo(2000.0);
    assertThat(usage.switchesPer(1000)).isEqualTo(0.32);
  }

  @Test
  void aThreadThatDiedIsMissingAndARecycledIdCountsAsNew() {
    UsageMeter.Sample before =
        new UsageMeter.Sample(0, List.of(0L), List.of(Map.of(1L, 100L, 2L, 900L)), 0);
    // Thread 2 died (its switches are lost), thread 1's id went to a new thread with 30.
    UsageMeter.Sample after =
        new UsageMeter.Sample(1_000, List.of(0L), List.of(Map.of(1L, 30L)), 0);

    assertThat(UsageMeter.between(before, after).nodeContextSwitches()).isEqualTo(30);
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
      Path task = Files.createDirectories(proc.resolve(pid + "/task/" + thread.getKey()));
      Files.writeString(task.resolve("status"), ProcFsTest.status(thread.getValue(), 0));
    }
  }

  private static void generator(Path proc, long pid, long utime, long stime, long cutime)
      throws IOException {
    Files.createDirectories(proc.resolve(String.valueOf(pid)));
    Files.writeString(
        proc.resolve(pid + "/stat"), ProcFsTest.stat(pid, "java", utime, stime, cutime, 0));
  }
}
