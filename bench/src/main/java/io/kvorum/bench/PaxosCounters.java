package io.kvorum.bench;

import io.kvorum.bench.cluster.BenchCluster;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The round trips of conditional writes, summed over the nodes' {@code kvorum_paxos_phases_total}
 * and {@code kvorum_paxos_retries_total} on their {@code /metrics}.
 */
final class PaxosCounters {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final BenchCluster cluster;

  PaxosCounters(BenchCluster cluster) {
    this.cluster = cluster;
  }

  /** The counters now, summed over the nodes. */
  Snapshot snapshot() throws IOException, InterruptedException {
    Snapshot sum = new Snapshot(0, 0, 0, 0);
    for (int i = 0; i < cluster.size(); i++) {
      String metrics =
          HTTP.send(
                  HttpRequest.newBuilder(cluster.uri(i, "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      sum =
          sum.plus(
              new Snapshot(
                  sum(metrics, "kvorum_paxos_phases_total{", "phase=\"prepare\""),
                  sum(metrics, "kvorum_paxos_phases_total{", "phase=\"accept\""),
                  sum(metrics, "kvorum_paxos_phases_total{", "phase=\"commit\""),
                  sum(metrics, "kvorum_paxos_retries_total{", "")));
    }
    return sum;
  }

  /**
   * The sum of the samples of a metric whose line starts with {@code start} and holds {@code
   * label}.
   */
  static double sum(String exposition, String start, String label) {
    return exposition
        .lines()
        .filter(line -> line.startsWith(start) && line.contains(label))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** Round trips by phase, and rounds tried again. */
  record Snapshot(double prepares, double accepts, double commits, double retries) {
    Snapshot plus(Snapshot o) {
      return new Snapshot(
          prepares + o.prepares, accepts + o.accepts, commits + o.commits, retries + o.retries);
    }

    Snapshot minus(Snapshot o) {
      return new Snapshot(
          prepares - o.prepares, accepts - o.accepts, commits - o.commits, retries - o.retries);
    }

    double roundTrips() {
      return prepares + accepts + commits;
    }
  }
}
