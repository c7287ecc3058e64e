package io.kvorum.bench.wrk2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.bench.load.PhaseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class Wrk2OutputTest {
  /** A wrk2 run of 3 s at 500 PUT/s against one node (1,497 answers), as wrk2 printed it. */
  private static String put500() throws IOException {
    try (InputStream in = Wrk2OutputTest.class.getResourceAsStream("put-500.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A made-up run whose spectrum is easy to check by hand, with errors of every kind. */
  private static String small(double p50, double p99, double max, long requests) {
    return String.join(
        "\n",
        "Running 10s test @ http://127.0.0.1:18080",
        "  1 threads and 10 connections",
        "  Latency Distribution (HdrHistogram - Recorded Latency)",
        " 50.000%    " + p50 + "ms",
        "",
        "  Detailed Percentile spectrum:",
        "       Value   Percentile   TotalCount 1/(1-Percentile)",
        "",
        String.format("%12.3f     0.000000            1         1.00", p50 / 2),
        String.format("%12.3f     0.500000           50         2.00", p50),
        String.format("%12.3f     0.990000           99       100.00", p99),
        String.format("%12.3f     1.000000          100          inf", max),
        "#[Mean    =        1.000, StdDeviation   =        0.500]",
        "#[Max     =        " + max + ", Total count    =          100]",
        "#[Buckets =           27, SubBuckets     =         2048]",
        "----------------------------------------------------------",
        "  " + requests + " requests in 10.00s, 1.00MB read",
        "  Socket errors: connect 0, read 2, write 0, timeout 3",
        "  Non-2xx or 3xx responses: 4",
        "Requests/sec:    100.00",
        "Transfer/sec:    100.00KB",
        "");
  }

  @Test
  void theRebuiltHistogramGivesWrk2sOwnPercentiles() throws IOException {
    Wrk2Output output = Wrk2Output.parse(put500());

    assertThat(output.requests()).isEqualTo(1497);
    assertThat(output.statusErrors()).isZero();
    assertThat(output.socketErrors()).isEmpty();
    assertThat(output.latency().getTotalCount()).isEqualTo(1496);
    // Rows of the spectrum come back exactly: "1.357 0.500000 748", "9.983 0.987500 1478",
    // "22.319 0.998828 1495"; the largest value is the last row's.
    assertThat(output.latency().getValueAtPercentile(50)).isEqualTo(1357);
    assertThat(output.latency().getValueAtPercentile(98.75)).isEqualTo(9983);
    assertThat(output.latency().getValueAtPercentile(99.8828)).isBetween(22_319L, 22_329L);
    assertThat(output.latency().getMaxValue()).isBetween(23_983L, 23_993L);
    // Request 1,481 lies between the rows "10.407 … 1480" and "11.015 … 1482": interpolated.
    assertThat(output.latency().getValueAtPercentile(98.99)).isBetween(10_700L, 10_720L);
    // (wrk2's own summary says 99% 10.61ms: C's HdrHistogram takes the nearest rank, 1,481,
    // Java's the next one up, 1,482, which is the 11.015 ms row.)
    assertThat(output.latency().getValueAtPercentile(99)).isEqualTo(11_015);
  }

  @Test
  void errorsOfEveryKindAreRead() {
    Wrk2Output output = Wrk2Output.parse(small(1.0, 5.0, 9.0, 100));

    assertThat(output.requests()).isEqualTo(100);
    assertThat(output.statusErrors()).isEqualTo(4);
    assertThat(output.socketErrors()).containsOnlyKeys("read", "timeout");
    assertThat(output.socketErrors()).containsEntry("read", 2L).containsEntry("timeout", 3L);
  }

  @Test
  void mergedPercentilesAreOfAllRequestsTogetherNotAnAverage() {
    // A fast process and a slow one, 100 requests each: the median of the 200 requests is the
    // fast one's slowest, their p99 the slow one's 98th request, between its rows at 10 and 50 ms:
    // far above the mean of the two p99s (26 ms).
    Wrk2Output fast = Wrk2Output.parse(small(1.0, 2.0, 3.0, 100));
    Wrk2Output slow = Wrk2Output.parse(small(10.0, 50.0, 90.0, 100));

    PhaseResult merged =
        Wrk2Output.merge("put@300", 300, Duration.ofSeconds(10), List.of(fast, slow));

    assertThat(merged.latency().getTotalCount()).isEqualTo(200);
    assertThat(merged.latency().getValueAtPercentile(50)).isBetween(2999L, 3002L);
    assertThat(merged.p99Micros()).isBetween(49_000L, 49_300L);
    assertThat(merged.answered()).isEqualTo(200);
    assertThat(merged.succeeded()).isEqualTo(192);
    assertThat(merged.errors())
        .containsEntry("status >= 400", 8L)
        .containsEntry("read", 4L)
        .containsEntry("timeout", 6L);
    assertThat(merged.achievedRate()).isEqualTo(20.0);
    assertThat(merged.requestedRate()).isEqualTo(300);
  }

  @Test
  void outputWithoutAResultIsRefused() {
    assertThatThrownBy(
            () -> Wrk2Output.parse("unable to connect to 127.0.0.1:1 Connection refused"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Connection refused");
  }

  @Test
  void onlyTheCorrectedSpectrumCountsWhenTheUncorrectedOneFollows() {
    String both =
        small(1.0, 2.0, 3.0, 100)
            .replace(
                "Requests/sec",
                "  Detailed Percentile spectrum:\n       0.001     1.000000        100   inf\n"
                    + "Requests/sec");

    assertThat(Wrk2Output.parse(both).latency().getValueAtPercentile(50)).isBetween(999L, 1001L);
  }
}
