package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcLogTest {
  private static final List<String> LOG =
      List.of(
          "[2026-11-23T10:57:34.114+0000][0.004s][gc     ] Using G1",
          "[2026-11-23T10:57:34.721+0000][0.611s][gc,start    ] GC(0) Pause Young (Normal)"
              + " (G1 Evacuation Pause)",
          "[2026-11-23T10:57:34.800+0000][0.700s][gc,phases   ] GC(0)   Pre Evacuate Collection"
              + " Set: 0.1ms",
          "[2026-11-23T10:57:34.890+0000][0.780s][gc          ] GC(0) Pause Young (Normal)"
              + " (G1 Evacuation Pause) 15M->4M(64M) 169.370ms",
          "[2026-11-23T10:57:35.000+0000][0.890s][gc,cpu      ] GC(0) User=0.01s Sys=0.00s"
              + " Real=0.17s",
          "[2026-11-23T10:57:36.162+0000][2.052s][gc          ] GC(1) Pause Remark"
              + " 29M->17M(64M) 2.5ms",
          "[2026-11-23T10:57:36.170+0000][2.060s][gc,marking  ] GC(1) Concurrent Mark 12.000ms",
          "[2026-11-23T10:57:37.500+0000][3.390s][gc          ] GC(2) Pause Full (System.gc())"
              + " 42M->3M(64M) 30.125ms");

  @Test
  void everyPauseWithItsEndKindAndLengthAndNothingElse() {
    List<GcLog.Pause> pauses = GcLog.parse(LOG);

    assertThat(pauses)
        .containsExactly(
            new GcLog.Pause(
                Instant.parse("2026-11-23T10:57:34.890Z"),
                "Pause Young (Normal) (G1 Evacuation Pause)",
                169.37),
            new GcLog.Pause(Instant.parse("2026-11-23T10:57:36.162Z"), "Pause Remark", 2.5),
            new GcLog.Pause(
                Instant.parse("2026-11-23T10:57:37.500Z"), "Pause Full (System.gc())", 30.125));
  }

  @Test
  void anIntervalCountsThePausesThatEndedInIt() {
    List<GcLog.Pause> pauses = GcLog.parse(LOG);

    GcPauses some =
        GcLog.between(
            pauses,
            Instant.parse("2026-11-23T10:57:35.000Z"),
            Instant.parse("2026-11-23T10:57:37.500Z"));

    assertThat(some.count()).isEqualTo(2);
    assertThat(some.maxMillis()).isEqualTo(30.125);
    assertThat(some.totalMillis()).isEqualTo(32.625);
    assertThat(
            GcLog.between(
                pauses,
                Instant.parse("2026-11-23T11:00:00Z"),
                Instant.parse("2026-11-23T11:01:00Z")))
        .isEqualTo(GcPauses.NONE);
  }

  @Test
  void pausesOfSeveralNodesAddUp() {
    assertThat(new GcPauses(2, 5, 7).plus(new GcPauses(1, 9, 9))).isEqualTo(new GcPauses(3, 9, 16));
  }

  @Test
  void theLogOfARealJvmStartedWithTheRunnersOptionParses(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("gc.log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process jvm =
        new ProcessBuilder(java.toString(), "-XX:+UseG1GC", GcLog.jvmOption(log), "-version")
            .redirectErrorStream(true)
            .start();
    jvm.getInputStream().readAllBytes();
    assertThat(jvm.waitFor()).isZero();
    Files.writeString(
        log,
        "[2026-11-23T10:57:34.890+0000][0.780s][gc          ] GC(0) Pause Young (Normal)"
            + " (G1 Evacuation Pause) 15M->4M(64M) 1.000ms\n",
        StandardOpenOption.APPEND);

    List<String> lines = Files.readAllLines(log);
    assertThat(lines.get(0)).matches("^\\[\\d{4}-\\d\\d-\\d\\dT[^]]+]\\[[0-9.]+s]\\[gc.*");
    assertThat(GcLog.read(log)).hasSize(1);
  }

  @Test
  void aMissingLogHasNoPauses() throws IOException {
    assertThat(GcLog.read(Path.of("/nonexistent/gc.log"))).isEmpty();
  }
}
