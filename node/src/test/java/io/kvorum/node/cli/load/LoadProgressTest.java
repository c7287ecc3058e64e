package io.kvorum.node.cli.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.cli.admin.ProgressLine;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the operator reads while a load runs: records, MB/s and the time left. */
class LoadProgressTest {
  private final AtomicLong nanos = new AtomicLong();
  private final StringWriter printed = new StringWriter();

  @Test
  void aPlainLineEveryFewSecondsWithRecordsRateAndTimeLeft() {
    LoadProgress progress = new LoadProgress(new PrintWriter(printed), false, 100_000, nanos::get);

    progress.taken(20_000, 4_000_000);
    nanos.set(2_000_000_000L);
    progress.maybePrint();
    assertThat(printed.toString()).isEmpty();
    nanos.set(10_000_000_000L);
    progress.maybePrint();

    assertThat(printed.toString())
        .isEqualTo(
            "20,000 of ~100,000 records, 0.4 MB/s, 2,000 records/s, 0:40 left"
                + System.lineSeparator());
  }

  @Test
  void onATerminalTheLineIsRedrawnAndEndedOnce() {
    LoadProgress progress = new LoadProgress(new PrintWriter(printed), true, 0, nanos::get);

    progress.taken(500, 1_000_000);
    nanos.set(1_000_000_000L);
    progress.maybePrint();
    progress.taken(500, 1_000_000);
    nanos.set(2_000_000_000L);
    progress.maybePrint();
    progress.finish();

    assertThat(printed.toString())
        .isEqualTo(
            "\r500 records, 1.0 MB/s, 500 records/s  \r1,000 records, 1.0 MB/s, 500 records/s  "
                + System.lineSeparator());
  }

  @Test
  void hoursShowAsHours() {
    assertThat(ProgressLine.clock(3 * 3600 + 7 * 60 + 5)).isEqualTo("3:07:05");
    assertThat(ProgressLine.clock(65)).isEqualTo("1:05");
  }
}
