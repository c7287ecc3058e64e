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
  void contextSwitchesAreVoluntaryPlusInvoluntaryPerThread(@TempDir Path proc) throws IOException {
    for (long tid : new long[] {42, 43}) {
      Files.createDirectories(proc.resolve("42/task/" + tid));
    }
    Files.writeString(proc.resolve("42/task/42/status"), status(100, 5));
    Files.writeString(proc.resolve("42/task/43/status"), status(7, 1));

    assertThat(new ProcFs(proc, 100).contextSwitchesByThread(42))
        .containsEntry(42L, 105L)
        .containsEntry(43L, 8L)
        .hasSize(2);
  }

  @Test
  void aThreadThatExitsDuringTheReadIsLeftOut(@TempDir Path proc) throws IOException {
    Files.createDirectories(proc.resolve("42/task/42"));
    Files.createDirectories(proc.resolve("42/task/44"));
    Files.writeString(proc.resolve("42/task/42/status"), status(1, 2));

    assertThat(new ProcFs(proc, 100).contextSwitchesByThread(42)).containsOnlyKeys(42L);
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
    assertThat(fs.contextSwitchesByThread(pid)).containsKey(pid);
  }
}
