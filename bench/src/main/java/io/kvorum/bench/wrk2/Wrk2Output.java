package io.kvorum.bench.wrk2;

import io.kvorum.bench.load.PhaseResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * What one wrk2 process printed with {@code --latency}, and the merge of several into one {@link
 * PhaseResult}.
 *
 * <p>wrk2 prints its HdrHistogram of (corrected) latencies as a "Detailed Percentile spectrum":
 * rows of value (ms, to the microsecond), percentile and cumulative count, five rows per halving of
 * the remaining percentiles (about 0.16 percentile points apart around p99, 0.02 around p99.9). The
 * histogram is rebuilt from the rows: the requests between two rows are spread evenly (by rank)
 * over the values between them, so the rebuilt percentiles are exact at the rows and linearly
 * interpolated between them. Histograms of several processes then merge by addition, so the merged
 * p99 is a percentile of all their requests together, not an average of percentiles.
 *
 * @param requests answers received (the "N requests in" line)
 * @param statusErrors answers with a status of 400 or more
 * @param socketErrors connect, read, write and timeout errors by kind
 * @param latency the rebuilt histogram, in microseconds
 */
public record Wrk2Output(
    long requests, long statusErrors, Map<String, Long> socketErrors, Histogram latency) {
  private static final Pattern ROW =
      Pattern.compile("^\\s*(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+)\\s+(\\S+)\\s*$");
  private static final Pattern REQUESTS = Pattern.compile("^\\s*(\\d+) requests in ");
  private static final Pattern SOCKET =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
  private static final Pattern STATUS = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");

  public Wrk2Output {
    socketErrors = Map.copyOf(socketErrors);
  }

  /**
   * Parses wrk2's standard output.
   *
   * @throws IllegalArgumentException if it holds no result (wrk2 failed, or ran without {@code
   *     --latency})
   */
  public static Wrk2Output parse(String stdout) {
    Histogram latency = new Histogram(3);
    long requests = -1;
    long status = 0;
    Map<String, Long> socket = new LinkedHashMap<>();
    boolean inSpectrum = false;
    boolean sawSpectrum = false;
    long previous = 0;
    long previousMicros = 0;
    for (String line : stdout.lines().toList()) {
      if (line.contains("Detailed Percentile spectrum")) {
        // Only the first (recorded, corrected) spectrum; -U would print an uncorrected second.
        inSpectrum = !sawSpectrum;
        sawSpectrum = true;
        continue;
      }
      if (inSpectrum) {
        Matcher row = ROW.matcher(line);
        if (row.matches()) {
          long count = Long.parseLong(row.group(3));
          long micros = Math.max(0, Math.round(Double.parseDouble(row.group(1)) * 1000));
          if (count > previous) {
            spread(latency, previous == 0 ? micros : previousMicros, micros, count - previous);
            previous = count;
          }
          previousMicros = micros;
        } else if (line.startsWith("#[")) {
          inSpectrum = false;
        }
        continue;
      }
      Matcher requestsLine = REQUESTS.matcher(line);
      Matcher socketLine = SOCKET.matcher(line);
      Matcher statusLine = STATUS.matcher(line);
      if (requestsLine.find()) {
        requests = Long.parseLong(requestsLine.group(1));
      } else if (socketLine.find()) {
        String[] kinds = {"connect", "read", "write", "timeout"};
        for (int i = 0; i < kinds.length; i++) {
          long n = Long.parseLong(socketLine.group(i + 1));
          if (n > 0) {
            socket.put(kinds[i], n);
          }
        }
      } else if (statusLine.find()) {
        status = Long.parseLong(statusLine.group(1));
      }
    }
    if (requests < 0 || !sawSpectrum) {
      throw new IllegalArgumentException(
          "not the output of wrk2 --latency: "
              + stdout.substring(0, Math.min(stdout.length(), 600)));
    }
    return new Wrk2Output(requests, status, socket, latency);
  }

  /**
   * Records {@code count} requests known to lie between two values (rows of the spectrum) at evenly
   * spaced values above {@code low} up to {@code high}; in at most 100 groups.
   */
  private static void spread(Histogram latency, long low, long high, long count) {
    int parts = (int) Math.min(count, 100);
    for (int part = 1; part <= parts; part++) {
      long n = count * part / parts - count * (part - 1) / parts;
      latency.recordValueWithCount(low + (high - low) * part / parts, n);
    }
  }

  /**
   * One result of several wrk2 processes that ran side by side for {@code window}.
   *
   * @param rate the rate they were asked for together, 0 for a flat-out run
   */
  public static PhaseResult merge(
      String name, double rate, Duration window, List<Wrk2Output> outputs) {
    Histogram latency = new Histogram(3);
    Map<String, Long> errors = new LinkedHashMap<>();
    long requests = 0;
    long status = 0;
    for (Wrk2Output output : outputs) {
      latency.add(output.latency());
      requests += output.requests();
      status += output.statusErrors();
      output.socketErrors().forEach((kind, n) -> errors.merge(kind, n, Long::sum));
    }
    if (status > 0) {
      errors.put("status >= 400", status);
    }
    return new PhaseResult(
        name,
        rate,
        window,
        requests,
        requests - status,
        requests,
        Map.copyOf(errors),
        latency,
        Map.of(),
        List.of(),
        0,
        0);
  }
}
