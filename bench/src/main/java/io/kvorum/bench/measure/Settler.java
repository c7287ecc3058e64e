package io.kvorum.bench.measure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Waits between phases until the nodes' RocksDB is quiet, so that one phase's flushes and
 * compactions do not land in the next one's tail: at least a fixed minimum, then until the summed
 * {@code kvorum_storage_compaction_pending_bytes} of every node is at most {@link
 * #QUIET_PENDING_BYTES} and no node's RocksDB log shows a flush or compaction in progress, at most
 * until a maximum.
 */
public final class Settler {
  /** Pending compaction bytes that count as quiet: less than one memtable of a node. */
  public static final long QUIET_PENDING_BYTES = 1 << 20;

  static final String PENDING_METRIC = "kvorum_storage_compaction_pending_bytes";
  private static final Duration POLL = Duration.ofMillis(500);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<URI> metrics;
  private final List<RocksDbLog> logs;

  /**
   * @param metrics each node's {@code /metrics} address
   * @param rocksDbLogs each node's RocksDB {@code LOG} file
   */
  public Settler(List<URI> metrics, List<Path> rocksDbLogs) {
    this.metrics = List.copyOf(metrics);
    this.logs = rocksDbLogs.stream().map(RocksDbLog::new).toList();
  }

  /**
   * What a settle pause found.
   *
   * @param waited how long it waited
   * @param quiet whether the store was quiet when it stopped (false: the maximum ran out)
   * @param pendingBytes the summed pending compaction bytes at the end (-1: no node publishes it)
   * @param runningJobs flushes and compactions in progress at the end
   */
  public record Settled(Duration waited, boolean quiet, long pendingBytes, int runningJobs) {
    public String describe() {
      return String.format(
          Locale.ROOT,
          "settled %.1f s (%s: %s pending compaction, %d flush/compaction jobs running)",
          waited.toMillis() / 1000.0,
          quiet ? "quiet" : "still busy at the limit",
          pendingBytes < 0 ? "no metric of" : String.format(Locale.ROOT, "%,d bytes", pendingBytes),
          runningJobs);
    }
  }

  /** Waits at least {@code minimum}, then until quiet, at most {@code maximum} in all. */
  public Settled settle(Duration minimum, Duration maximum) throws InterruptedException {
    long start = System.nanoTime();
    Thread.sleep(minimum);
    while (true) {
      long pending = pendingBytes();
      int jobs = runningJobs();
      boolean quiet = pending <= QUIET_PENDING_BYTES && jobs == 0;
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      if (quiet || waited.plus(POLL).compareTo(maximum) > 0) {
        return new Settled(waited, quiet, pending, jobs);
      }
      Thread.sleep(POLL);
    }
  }

  private long pendingBytes() throws InterruptedException {
    long sum = -1;
    for (URI uri : metrics) {
      try {
        String body =
            HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        double value = metric(body, PENDING_METRIC);
        if (!Double.isNaN(value)) {
          sum = Math.max(sum, 0) + (long) value;
        }
      } catch (IOException e) {
        // A node that does not answer its metrics is not quiet.
        return Long.MAX_VALUE;
      }
    }
    return sum;
  }

  private int runningJobs() {
    int jobs = 0;
    for (RocksDbLog log : logs) {
      try {
        jobs += log.runningJobs();
      } catch (IOException e) {
        // An unreadable log says nothing; the pending bytes still do.
      }
    }
    return jobs;
  }

  /** The sum of a metric's samples (all label sets) in a Prometheus text page; NaN if absent. */
  static double metric(String page, String name) {
    double sum = Double.NaN;
    for (String line : page.lines().toList()) {
      if (line.startsWith(name)
          && line.length() > name.length()
          && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')) {
        double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        sum = Double.isNaN(sum) ? value : sum + value;
      }
    }
    return sum;
  }
}
