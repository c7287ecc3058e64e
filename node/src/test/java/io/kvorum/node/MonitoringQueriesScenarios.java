package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.testing.PromQl;
import io.kvorum.node.testing.RepositoryScripts;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.testing.TestNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Every metric that the chart's Grafana dashboard ({@code helm/kvorum/dashboards/*.json}) and its
 * alerting rules ({@code templates/prometheusrule.yaml}) query exists on the {@code /metrics} of
 * running nodes: a panel or an alert on a misspelt or renamed metric would stay empty, or silent,
 * forever. The nodes form a three-node cluster that has served requests, stored a hint for a node
 * it could not reach, answered a 504 and repaired a stale replica, so that the series that appear
 * only with traffic (per operation, per peer, per outcome) exist.
 */
abstract class MonitoringQueriesScenarios {
  /** Series Prometheus makes itself for every target, not found on any /metrics. */
  private static final Set<String> MADE_BY_PROMETHEUS = Set.of("up");

  /** Series of nodes with TLS on only (TlsMaterialTest shows what they hold). */
  private static final Set<String> ONLY_WITH_TLS =
      Set.of("kvorum_tls_certificate_expiry_timestamp_seconds");

  private static final Pattern RULE_EXPR = Pattern.compile("^(\\s*)expr: >-\\s*$");
  private static final Pattern TEMPLATE_ACTION = Pattern.compile("\\{\\{.*?}}");

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyMetricTheDashboardAndTheAlertsQueryExistsOnARunningCluster() throws Exception {
    Map<String, Set<String>> queried = queriedMetrics();
    Exposition exposition;
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(Duration.ofMillis(300)))) {
      exposition = scrapeAfterTraffic(cluster);
    }
    List<String> missing = new ArrayList<>();
    queried.forEach(
        (metric, where) -> {
          if (!MADE_BY_PROMETHEUS.contains(metric)
              && !ONLY_WITH_TLS.contains(metric)
              && !exposition.samples().contains(metric)) {
            missing.add(metric + " (" + String.join(", ", where) + ")");
          }
        });
    assertThat(missing).as("metrics queried but not exposed by any node").isEmpty();
    assertThat(queried.keySet())
        .as("enough of the metrics are queried for this test to mean something")
        .contains(
            "kvorum_http_request_duration_seconds_bucket",
            "kvorum_replica_calls_seconds_bucket",
            "kvorum_hints_pending",
            "kvorum_read_repairs_total",
            "kvorum_storage_compaction_pending_bytes",
            "kvorum_disk_free_bytes",
            "jvm_memory_used_bytes",
            "up");
  }

  @Test
  void latencyPercentilesAreComputedFromHistograms() throws Exception {
    Set<String> inputs = new TreeSet<>();
    for (String query : queries().keySet()) {
      inputs.addAll(PromQl.quantileInputs(query));
    }
    assertThat(inputs)
        .containsExactlyInAnyOrder(
            "kvorum_http_request_duration_seconds_bucket", "kvorum_replica_calls_seconds_bucket");
    try (TestCluster cluster = clusters().start(2, c -> c.requestTimeout(Duration.ofMillis(300)))) {
      assertThat(status(cluster.node(1), "PUT", "/v0/entity?id=h&ack=2&from=2")).isEqualTo(201);
      Exposition exposition = scrape(cluster.node(1));
      for (String bucket : inputs) {
        String family = bucket.substring(0, bucket.length() - "_bucket".length());
        assertThat(exposition.types()).as(family).containsEntry(family, "histogram");
      }
    }
  }

  @Test
  void readsMetricNamesOutOfPromQl() {
    assertThat(
            PromQl.metricNames(
                "histogram_quantile(0.99, sum by (le, peer) (rate(kvorum_replica_calls_seconds_bucket"
                    + "{namespace=~\"$namespace\", outcome=\"ok\"}[$__rate_interval])))"))
        .containsExactly("kvorum_replica_calls_seconds_bucket");
    assertThat(
            PromQl.metricNames(
                "(count(up{job=\"a\"}) or vector(0)) < 3 and on (node) disk_free_bytes"
                    + " / disk_total_bytes > 1e3"))
        .containsExactlyInAnyOrder("up", "disk_free_bytes", "disk_total_bytes");
    assertThat(PromQl.metricNames("label_values(kvorum_http_requests_inflight{a=\"b\"}, node)"))
        .containsExactly("kvorum_http_requests_inflight");
  }

  /** Each queried metric name, with the panels or alerts that query it. */
  private static Map<String, Set<String>> queriedMetrics() throws IOException {
    Map<String, Set<String>> metrics = new TreeMap<>();
    queries()
        .forEach(
            (query, where) ->
                PromQl.metricNames(query)
                    .forEach(
                        name -> metrics.computeIfAbsent(name, k -> new TreeSet<>()).add(where)));
    return metrics;
  }

  /** Every PromQL query of the chart's dashboards and rules, with where it comes from. */
  private static Map<String, String> queries() throws IOException {
    Path chart = RepositoryScripts.repository().resolve("helm/kvorum");
    Map<String, String> queries = new HashMap<>();
    List<Path> dashboards;
    try (Stream<Path> files = Files.list(chart.resolve("dashboards"))) {
      dashboards = files.filter(f -> f.toString().endsWith(".json")).toList();
    }
    assertThat(dashboards).isNotEmpty();
    ObjectMapper json = new ObjectMapper();
    for (Path file : dashboards) {
      JsonNode board = json.readTree(file.toFile());
      for (JsonNode panel : board.path("panels")) {
        for (JsonNode target : panel.path("targets")) {
          queries.put(target.path("expr").asText(), "panel '" + panel.path("title").asText() + "'");
        }
      }
      for (JsonNode variable : board.path("templating").path("list")) {
        JsonNode query = variable.path("query");
        if (variable.path("type").asText().equals("query")) {
          queries.put(
              query.isTextual() ? query.asText() : query.path("query").asText(),
              "variable $" + variable.path("name").asText());
        }
      }
    }
    ruleExpressions(chart.resolve("templates/prometheusrule.yaml"))
        .forEach((alert, expr) -> queries.put(expr, "alert " + alert));
    return queries;
  }

  /**
   * The {@code expr: >-} blocks of the rules template, template actions (selectors, thresholds)
   * left out, by the name of their alert.
   */
  private static Map<String, String> ruleExpressions(Path template) throws IOException {
    List<String> lines = Files.readAllLines(template, UTF_8);
    Map<String, String> expressions = new TreeMap<>();
    String alert = "?";
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.trim().startsWith("- alert: ")) {
        alert = line.trim().substring("- alert: ".length());
      }
      Matcher expr = RULE_EXPR.matcher(line);
      if (expr.matches()) {
        StringBuilder text = new StringBuilder();
        int indent = expr.group(1).length();
        while (i + 1 < lines.size() && indentOf(lines.get(i + 1)) > indent) {
          text.append(lines.get(++i).trim()).append(' ');
        }
        expressions.put(alert, TEMPLATE_ACTION.matcher(text).replaceAll(""));
      }
    }
    assertThat(expressions).as("alert expressions in " + template).hasSizeGreaterThan(5);
    return expressions;
  }

  private static int indentOf(String line) {
    return line.isBlank() ? Integer.MAX_VALUE : line.length() - line.stripLeading().length();
  }

  /**
   * Requests of every kind, a hint (n1 cannot reach n3), a 504 (n1 asks n3 too) and a read repair
   * (n2 finds n3 stale); then the union of the three nodes' expositions, as Prometheus sees them.
   */
  private Exposition scrapeAfterTraffic(TestCluster cluster) throws Exception {
    TestNode n1 = cluster.node(1);
    TestNode n2 = cluster.node(2);
    assertThat(status(n1, "PUT", "/v0/entity?id=a&ack=3&from=3")).isEqualTo(201);
    assertThat(status(n2, "GET", "/v0/entity?id=a")).isEqualTo(200);
    assertThat(status(n2, "GET", "/v0/entity?id=absent")).isEqualTo(404);
    assertThat(status(n1, "DELETE", "/v0/entity?id=a")).isEqualTo(202);
    assertThat(status(n1, "GET", "/v0/entity?id=")).isEqualTo(400);
    assertThat(status(n2, "GET", "/v0/entities?start=a")).isEqualTo(200);

    cluster.partition(1, 3);
    assertThat(status(n1, "PUT", "/v0/entity?id=hinted&ack=2&from=3")).isEqualTo(201);
    assertThat(status(n1, "GET", "/v0/entity?id=hinted&ack=3&from=3")).isEqualTo(504);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> scrape(n1).text().contains("kvorum_hints_pending{node=\"n1\",peer=\"n3\"} 1"));
    assertThat(status(n2, "GET", "/v0/entity?id=hinted&ack=3&from=3")).isEqualTo(200);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> cluster.node(3).stored("hinted").isPresent());
    assertThat(scrape(n2).text()).containsPattern("kvorum_read_repairs_total\\{node=\"n2\"} [1-9]");

    // GC pauses are timed from the first collection on; a node that has run a while has had one.
    System.gc();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> scrape(n1).samples().contains("jvm_gc_pause_seconds_sum"));
    Exposition all = scrape(n1);
    for (int i = 2; i <= cluster.size(); i++) {
      all = all.and(scrape(cluster.node(i)));
    }
    return all;
  }

  private int status(TestNode node, String method, String target) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(node.url(target)))
            .method(method, HttpRequest.BodyPublishers.ofString("v"))
            .timeout(Duration.ofSeconds(10))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private Exposition scrape(TestNode node) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(node.url("/metrics")))
            .timeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return Exposition.parse(response.body());
  }

  /** Prometheus text: the sample names present and the declared type of each family. */
  private record Exposition(String text, Set<String> samples, Map<String, String> types) {
    static Exposition parse(String text) {
      Set<String> samples = new TreeSet<>();
      Map<String, String> types = new TreeMap<>();
      for (String line : text.split("\n")) {
        if (line.startsWith("# TYPE ")) {
          String[] parts = line.split(" ");
          types.put(parts[2], parts[3]);
        } else if (!line.isBlank() && !line.startsWith("#")) {
          samples.add(line.split("[{ ]", 2)[0]);
        }
      }
      return new Exposition(text, samples, types);
    }

    Exposition and(Exposition other) {
      Set<String> s = new TreeSet<>(samples);
      s.addAll(other.samples);
      Map<String, String> t = new TreeMap<>(types);
      t.putAll(other.types);
      return new Exposition(text + other.text, s, t);
    }
  }
}
