package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbLogTest {
  private static String event(int job, String event) {
    return "2026/11/23-11:00:00.123456 7f3a EVENT_LOG_v1 {\"time_micros\": 1763895600123456,"
        + " \"job\": "
        + job
        + ", \"event\": \""
        + event
        + "\", \"cf_name\": \"default\"}\n";
  }

  @Test
  void aJobIsRunningFromItsStartToItsFinish(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("LOG");
    RocksDbLog log = new RocksDbLog(file);
    assertThat(log.runningJobs()).isZero();

    Files.writeString(file, event(3, "flush_started") + event(4, "compaction_started"));
    assertThat(log.runningJobs()).isEqualTo(2);

    append(file, event(3, "flush_finished"));
    assertThat(log.runningJobs()).isEqualTo(1);

    append(file, event(4, "compaction_finished") + "2026/11/23 [db/db_impl.cc] other line\n");
    assertThat(log.runningJobs()).isZero();
  }

  @Test
  void aLineWrittenInTwoPartsCountsOnceComplete(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("LOG");
    String line = event(9, "flush_started");
    Files.writeString(file, line.substring(0, 60));
    RocksDbLog log = new RocksDbLog(file);
    assertThat(log.runningJobs()).isZero();

    append(file, line.substring(60));
    assertThat(log.runningJobs()).isEqualTo(1);
  }

  @Test
  void aRotatedLogStartsOver(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("LOG");
    Files.writeString(file, event(1, "flush_started") + event(2, "flush_started"));
    RocksDbLog log = new RocksDbLog(file);
    assertThat(log.runningJobs()).isEqualTo(2);

    Files.writeString(file, event(2, "flush_finished"));
    assertThat(log.runningJobs()).isZero();
  }

  private static void append(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardOpenOption.APPEND);
  }
}
