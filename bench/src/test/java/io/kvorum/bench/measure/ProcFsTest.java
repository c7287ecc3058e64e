package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcFsTest {
  /** A /proc/<pid>/stat line with utime 1200, stime 300, cutime 50, cstime 7. */
  static String stat(long pid, String comm, long utime, long stime, long cutime, long cstime) {
    return pid
        + " ("
        + comm
        + ") S 1 2 3 0 -1 4194560 100 0 0 0 "
        + utime
        + " "
        + stime
        + " "
        + cutime
        + " "
        + cstime
        + " 20 0 42 0 1000 123456789 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n";
  }

  static String status(long voluntary, long involuntary) {
    return "Name:\tjava\nState:\tS (sleeping)\nThreads:\t42\n"
        + "voluntary_ctxt_switches:\t"
        + voluntary
        + "\nnonvoluntary_ctxt_switches:\t"
        + involuntary
        + "\n";
  }

  @Test
  void cpuTimeCountsUserAndSystemTicksAndChildrenOnlyWhenAsked(@TempDir Path proc)
      throws IOException {
    Files.createDirectories(proc.resolve("42"));
    Files.writeString(proc.resolve("42/stat"), stat(42, "java", 1200, 300, 50, 7));
    ProcFs fs = new ProcFs(proc, 100);

    assertThat(fs.cpuNanos(42, false)).isEqualTo(15_000_000_000L);
    assertThat(fs.cpuNanos(42, true)).isEqualTo(15_570_000_000L);
  }

  @Test
  void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
    long[] times = ProcFs.statTimes(stat(7, "kvorum (grpc) 1", 11, 22, 33, 44));

    assertThat(times).containsExactly(11, 22, 33, 44);
  }

  @Test
  void threadsHaveTheirNameCpuTimeAndVoluntaryPlusInvoluntarySwitches(@TempDir Path proc)
      throws IOException {
    task(proc, 42, 42, "java", 150, 50, 100, 5);
    task(proc, 42, 43, "C2 CompilerThre", 700, 30, 7, 1);
    task(proc, 42, 44, "kvorum-io-3", 20, 10, 2000, 40);

    assertThat(new ProcFs(proc, 100).threads(42))
        .containsEntry(42L, new ProcFs.ThreadUsage("java", 2_000_000_000L, 105))
        .containsEntry(43L, new ProcFs.ThreadUsage("C2 CompilerThre", 7_300_000_000L, 8))
        .containsEntry(44L, new ProcFs.ThreadUsage("kvorum-io-3", 300_000_000L, 2040))
        .hasSize(3);
  }

  @Test
  void aThreadNameWithSpacesAndParenthesesIsReadWhole() {
    assertThat(ProcFs.statName(stat(7, "GC Thread#0", 1, 2, 0, 0))).isEqualTo("GC Thread#0");
    assertThat(ProcFs.statName(stat(7, "a (b) c", 1, 2, 0, 0))).isEqualTo("a (b) c");
  }

  @Test
  void aThreadThatExitsDuringTheReadIsLeftOut(@TempDir Path proc) throws IOException {
    task(proc, 42, 42, "java", 1, 1, 1, 2);
    Files.createDirectories(proc.resolve("42/task/44"));

    assertThat(new ProcFs(proc, 100).threads(42)).containsOnlyKeys(42L);
  }

  static void task(
      Path proc,
      long pid,
      long tid,
      String name,
      long utime,
      long stime,
      long voluntary,
      long involuntary)
      throws IOException {
    Path task = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
    Files.writeString(task.resolve("stat"), stat(tid, name, utime, stime, 0, 0));
    Files.writeString(task.resolve("status"), status(voluntary, involuntary));
  }

  @Test
  void aStatusWithoutSwitchCountsIsRefused() {
    assertThatThrownBy(() -> ProcFs.contextSwitches("Name:\tjava\n"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theRealProcReadsThisProcess() throws IOException {
    ProcFs fs = ProcFs.system();
    long pid = ProcessHandle.current().pid();

    assertThat(fs.cpuNanos(pid, false)).isPositive();
    assertThat(fs.threads(pid)).containsKey(pid);
    assertThat(fs.threads(pid).get(pid).name()).isNotEmpty();
  }
}
