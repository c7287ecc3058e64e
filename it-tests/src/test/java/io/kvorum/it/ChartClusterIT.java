package io.kvorum.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A cluster made from the Helm chart alone: {@code helm template} renders it, and every pod of the
 * StatefulSet becomes a container with the pod spec's image, environment, ports, probes, security
 * context, limits and volumes, on a network where the pods' DNS names under the headless Service
 * resolve (see {@link ChartPod}). If the chart wired the peers, the probes, the volumes or the stop
 * wrongly, this cluster would not form, not serve or lose writes.
 *
 * <p>One cluster goes through the steps in order, as one release would in its life: it forms, a pod
 * is deleted gracefully and comes back, a pod is killed and comes back on its claim, and the
 * StatefulSet is scaled to four. Each step starts from three pods up and leaves them so; once a
 * step failed, the later ones are reported skipped (the cluster is no longer what they start from).
 * A cluster per step would prove no more and cost a rendered cluster's start each.
 */
@RequiresDocker
@RequiresHelm
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChartClusterIT {
  private static final String RELEASE = "chart-it";
  private static final String NAMESPACE = "kvorum-it";
  private static final String MEMORY_LIMIT = "768Mi";
  private static final int HEAP_PERCENT = 25;
  private static final Pattern HEAP_MAX =
      Pattern.compile("(?m)^jvm_memory_max_bytes\\{[^}]*area=\"heap\"[^}]*} ([0-9.E+]+)$");

  private static final String TLS_SECRET = "chart-it-tls";

  private RenderedChart chart;
  private ChartCluster cluster;
  private Path tlsFiles;
  private QuorumLoad load;
  private String scenario;

  /** A step began and did not end: the cluster may not be what the next step starts from. */
  private boolean broken;

  @BeforeAll
  void start() throws IOException {
    String image = NodeImage.name();
    Map<String, String> values = new LinkedHashMap<>();
    values.put("image.repository", image.substring(0, image.lastIndexOf(':')));
    values.put("image.tag", image.substring(image.lastIndexOf(':') + 1));
    values.put("image.pullPolicy", "Never");
    // Small nodes, set the way an operator would: through values, which the chart turns into the
    // container's limits, JAVA_OPTS and KVORUM_* variables.
    values.put("resources.requests.cpu", "250m");
    values.put("resources.requests.memory", MEMORY_LIMIT);
    values.put("resources.limits.memory", MEMORY_LIMIT);
    values.put("jvm.heapPercent", String.valueOf(HEAP_PERCENT));
    // C1 alone: short-lived nodes on two cores spend more CPU compiling with C2 than they gain.
    values.put("jvm.extraOpts", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    values.put("config.blockCacheSize", "16MiB");
    values.put("config.writeBufferSize", "8MiB");
    // Zones, as the production values have it: each pod passes its node's zone as --zone.
    values.put("zones.enabled", "true");
    // Mutual TLS between the pods and HTTPS for clients, as the production values have it, from an
    // existing Secret.
    values.put("tls.enabled", "true");
    values.put("tls.http", "true");
    values.put("tls.secretName", TLS_SECRET);
    chart = RenderedChart.render(RELEASE, NAMESPACE, values);
    tlsFiles = tlsSecret(chart);
    cluster = ChartCluster.start(chart, Map.of(TLS_SECRET, tlsFiles), tlsFiles.resolve("ca.crt"));
  }

  /**
   * The Secret's files, tls.crt, tls.key and ca.crt, from a CA made for this run: one certificate
   * for every pod, naming them all under the headless Service and the client Service as
   * cert-manager's would (templates/certificate.yaml).
   */
  private static Path tlsSecret(RenderedChart chart) throws IOException {
    Path dir = Files.createTempDirectory("kvorum-chart-it-tls");
    // Read by the pods' non-root user, as the kubelet's projection (mode 0440, fsGroup) allows.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    String headless = chart.headlessService().path("metadata").path("name").asText();
    List<String> names = new ArrayList<>();
    names.add("*." + headless + "." + NAMESPACE + ".svc." + RenderedChart.CLUSTER_DOMAIN);
    names.addAll(chart.clientServiceDnsNames());
    TestCertificates.NodeFiles files =
        TestCertificates.authority("chart-it-ca").issue(RELEASE, dir, names);
    Files.move(files.certificate(), dir.resolve("tls.crt"));
    Files.move(files.key(), dir.resolve("tls.key"));
    for (String file : List.of("tls.crt", "tls.key", "ca.crt")) {
      Files.setPosixFilePermissions(
          dir.resolve(file), PosixFilePermissions.fromString("rw-r--r--"));
    }
    return dir;
  }

  @BeforeEach
  void step(TestInfo test) {
    scenario = test.getTestMethod().orElseThrow().getName();
    Assumptions.assumeFalse(broken, "an earlier step failed, leaving the cluster in another state");
    broken = true;
  }

  @AfterEach
  void stopLoad() throws InterruptedException {
    if (load != null) {
      load.close();
      load = null;
    }
  }

  @AfterAll
  void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (tlsFiles != null) {
      try (var files = Files.list(tlsFiles)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(tlsFiles);
    }
  }

  @Test
  @Order(1)
  void theRenderedPodsFormAClusterByTheirDnsNamesInTheirZonesOverMutualTls() throws Exception {
    assertThat(cluster.size()).as("replicas").isEqualTo(3);
    cluster.awaitMembersUp();
    assertEveryPodSeesTheWholeClusterByItsDnsNames();
    assertEveryPodIsInItsNodesZone();
    assertThePodsTalkMutualTls();
    assertProbesAnswer();
    assertHeapIsSizedFromTheMemoryLimit();
    assertHelmTestPasses();
    assertEveryPodIsHealthyForDocker();
    broken = false;
  }

  @Test
  @Order(3)
  void aKilledPodComesBackOnItsClaimAndNoAcknowledgedWriteIsLost() throws Exception {
    cluster.awaitMembersUp();
    List<String> beforeKill = new ArrayList<>();
    try (KvorumClient client = cluster.client(0)) {
      for (int i = 0; i < 50; i++) {
        beforeKill.add("before-kill/" + i);
        client.put(utf8(beforeKill.get(i)), utf8("v" + i), Consistency.of(3, 3));
      }
    }
    load = new QuorumLoad(cluster, 4, 100);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    load.avoid(2);
    cluster.pod(2).kill();
    load.awaitAcknowledged(QuorumLoad.FAULT_PHASE);
    // As the StatefulSet controller does: a new pod, same name, same claim.
    cluster.pod(2).start();
    load.use(2);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    cluster.awaitHintsDelivered(2);
    check(history, 2);
    cluster.awaitMembersUp();

    // The new pod 2 found its claim: with the other two gone, it alone still has what was written
    // to all three replicas before it was killed.
    cluster.pod(0).kill();
    cluster.pod(1).kill();
    try (KvorumClient alone = cluster.client(2)) {
      for (int i = 0; i < beforeKill.size(); i++) {
        assertThat(alone.get(utf8(beforeKill.get(i)), Consistency.of(1, 3)))
            .as("%s read from the restarted pod alone", beforeKill.get(i))
            .hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isNotEmpty());
      }
    }
    cluster.pod(0).start();
    cluster.pod(1).start();
    cluster.awaitMembersUp();
    broken = false;
  }

  @Test
  @Order(2)
  void aPodDeletedGracefullyRunsItsPreStopAndStopsCleanlyWithinItsGracePeriod() throws Exception {
    load = new QuorumLoad(cluster, 4, 100);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    // The pod leaves the client Service's endpoints as its deletion starts.
    load.avoid(1);
    ChartPod.GracefulStop stop = cluster.pod(1).deleteGracefully();
    System.out.printf(
        "[%s] preStop took %d ms, the whole stop %d ms (grace period %d s), exit code %d%n",
        scenario,
        stop.preStop().toMillis(),
        stop.total().toMillis(),
        chart.terminationGracePeriodSeconds(),
        stop.exitCode());
    JsonNode preStop = chart.container().path("lifecycle").path("preStop").path("exec");
    assertThat(preStop.path("command").toString()).as("preStop hook").contains("sleep");
    assertThat(stop.preStop()).as("preStop").isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(stop.exitCode()).as("exit code after SIGTERM; logs:%n%s", stop.logs()).isZero();
    assertThat(stop.logs()).contains("node " + chart.podName(1) + " stopped");
    assertThat(stop.total())
        .as("preStop and graceful stop")
        .isLessThan(Duration.ofSeconds(chart.terminationGracePeriodSeconds()));

    load.awaitAcknowledged(QuorumLoad.FAULT_PHASE);
    cluster.pod(1).start();
    load.use(1);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    cluster.awaitHintsDelivered(1);
    check(history, 1);
    cluster.awaitMembersUp();
    broken = false;
  }

  /**
   * Issue 13: raising {@code replicas} by one adds pod 3, which is beyond the seed set ({@code
   * cluster.initialSize}, 3): the chart starts it with {@code --join} through pod 0 and its DNS
   * name as its address. It joins under quorum load, streams what it will own, and only then
   * reports ready; every pod then sees four members up, each by its DNS name.
   */
  @Test
  @Order(4)
  void scalingTheStatefulSetFromThreeToFourPodsAddsANodeThatJoinsByItself() throws Exception {
    cluster.awaitMembersUp();
    try (KvorumClient client = cluster.client(0)) {
      for (int i = 0; i < 200; i++) {
        client.put(utf8("before-scale/" + i), utf8("v" + i), Consistency.of(3, 3));
      }
    }
    // Through the first three pods only: pod 3 is not there yet.
    load = new QuorumLoad(cluster.first(3), 4, 100);
    load.awaitAcknowledged(QuorumLoad.PHASE);

    ChartPod added = cluster.scaleUp();

    assertThat(added.name()).isEqualTo(chart.podName(3));
    assertThat(added.logs()).contains("joins the cluster through " + chart.dnsNames(0).get(0));
    cluster.awaitMembersUp(Duration.ofMinutes(3));
    assertEveryPodSeesTheWholeClusterByItsDnsNames();
    JsonNode self = cluster.clusterView(3).path("nodes").get(3);
    assertThat(self.path("self").asBoolean()).isTrue();
    System.out.printf(
        "[%s] %s joined holding %d records%n",
        scenario, added.name(), self.path("records").asLong());
    assertThat(self.path("records").asLong()).as("records the new pod holds").isPositive();
    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    check(history, 3);
    broken = false;
  }

  private void assertEveryPodSeesTheWholeClusterByItsDnsNames() {
    int grpc = chart.containerPort("grpc");
    for (int i = 0; i < cluster.size(); i++) {
      JsonNode view = cluster.clusterView(i);
      assertThat(view.path("node").asText()).as("node id of pod %d", i).isEqualTo(chart.podName(i));
      List<String> members = new ArrayList<>();
      view.path("nodes")
          .forEach(
              m ->
                  members.add(
                      m.path("id").asText()
                          + "="
                          + m.path("address").asText()
                          + " "
                          + m.path("state").asText()));
      List<String> expected = new ArrayList<>();
      for (int j = 0; j < cluster.size(); j++) {
        expected.add(chart.podName(j) + "=" + chart.dnsNames(j).get(0) + ":" + grpc + " up");
      }
      assertThat(members).as("members as %s sees them", chart.podName(i)).isEqualTo(expected);
    }
  }

  /** Every pod took its node's zone from the init container's file, and every pod knows it. */
  private void assertEveryPodIsInItsNodesZone() {
    List<String> expected = new ArrayList<>();
    for (int j = 0; j < cluster.size(); j++) {
      expected.add(chart.podName(j) + " in " + ChartPod.nodeZone(j));
    }
    for (int i = 0; i < cluster.size(); i++) {
      int pod = i;
      // Each pod is ready once in its zone; the others learn of the last move by gossip.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                List<String> zones = new ArrayList<>();
                cluster
                    .clusterView(pod)
                    .path("nodes")
                    .forEach(
                        m -> zones.add(m.path("id").asText() + " in " + m.path("zone").asText()));
                assertThat(zones)
                    .as("zones as %s sees them", chart.podName(pod))
                    .isEqualTo(expected);
              });
    }
  }

  /** The pods formed the cluster above over mutual TLS, none refusing another's certificate. */
  private void assertThePodsTalkMutualTls() {
    for (int i = 0; i < cluster.size(); i++) {
      String logs = cluster.pod(i).logs();
      assertThat(logs).as("pod %d's log", i).contains("(mutual TLS)").contains("TLS (JDK engine)");
      assertThat(logs).as("pod %d's log", i).doesNotContain("refused an inter-node connection");
    }
  }

  private void assertProbesAnswer() {
    for (int i = 0; i < cluster.size(); i++) {
      for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
        assertThat(cluster.pod(i).probe(probe))
            .as("%s of %s", probe, chart.podName(i))
            .isEqualTo(200);
      }
    }
  }

  /**
   * {@code helm test}: the chart's hook pod, the node image's data CLI over HTTPS trusting the CA,
   * writes its key through the client Service's DNS name and reads it back; a client reads the same
   * value afterwards.
   */
  private void assertHelmTestPasses() {
    ChartHookPod.Outcome test = cluster.helmTest();
    System.out.printf("[%s] helm test: exit %d, %s", scenario, test.exitCode(), test.logs());
    assertThat(test.exitCode()).as("helm test pod's exit code; its log:%n%s", test.logs()).isZero();
    String key = "helm-test/" + RELEASE;
    Matcher written =
        Pattern.compile("wrote and read back " + Pattern.quote(key) + " through \\S+: (.+)")
            .matcher(test.logs());
    assertThat(written.find()).as("the hook's report in its log:%n%s", test.logs()).isTrue();
    try (KvorumClient client = cluster.client(1)) {
      assertThat(client.get(utf8(key), Consistency.of(2, 3)))
          .as("%s read through %s", key, chart.podName(1))
          .hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo(written.group(1)));
    }
  }

  /**
   * The image's {@code HEALTHCHECK} (docker/healthcheck) over HTTPS: the nodes serve {@code
   * --http-tls} (from {@code KVORUM_HTTP_TLS}), so it asks with {@code kvorum-node healthcheck}.
   */
  private void assertEveryPodIsHealthyForDocker() {
    for (int i = 0; i < cluster.size(); i++) {
      ChartPod pod = cluster.pod(i);
      Awaitility.await(pod.name() + " healthy")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(pod::health, "healthy"::equals);
    }
  }

  /** The chart gives the JVM a share of the container's memory limit as its heap. */
  private void assertHeapIsSizedFromTheMemoryLimit() {
    double expected = RenderedChart.bytes(MEMORY_LIMIT) * HEAP_PERCENT / 100.0;
    try (KvorumClient client = cluster.client(0)) {
      String metrics =
          new String(
              client
                  .send(HttpRequest.newBuilder(URI.create(client.baseUri() + "/metrics")).GET())
                  .body(),
              UTF_8);
      double heap = 0;
      Matcher m = HEAP_MAX.matcher(metrics);
      while (m.find()) {
        heap += Double.parseDouble(m.group(1));
      }
      System.out.printf(
          "[%s] heap %.0f MiB of a %s limit at %d%%%n",
          scenario, heap / (1 << 20), MEMORY_LIMIT, HEAP_PERCENT);
      // The pools' maxima add up to the maximum heap less one survivor space.
      assertThat(heap).as("maximum heap").isBetween(expected * 0.8, expected * 1.01);
    }
  }

  private void check(History history, int through) {
    try (KvorumClient client = cluster.client(through)) {
      History.Verdict verdict = history.verify(client, QuorumLoad.QUORUM);
      System.out.printf(
          "[%s] read at 2/3 through %s: checked %d keys' latest acknowledged writes, %d lost%n",
          scenario, chart.podName(through), verdict.checked(), verdict.lost().size());
      assertThat(verdict.checked()).as("acknowledged writes checked").isGreaterThan(50);
      assertThat(verdict.lost()).as("acknowledged writes lost").isEmpty();
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
