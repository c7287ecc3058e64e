package io.kvorum.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.testcontainers.containers.Network;
import org.testcontainers.lifecycle.Startables;

/**
 * The pods of a rendered chart's StatefulSet as containers on one network, the emulated pod
 * network: each pod reachable by its DNS names under the headless Service. Started all at once, as
 * {@code podManagementPolicy: Parallel} does.
 */
final class ChartCluster implements ClusterClients, AutoCloseable {
  private final Network network = Network.newNetwork();
  private final List<ChartPod> pods = new ArrayList<>();
  private final RenderedChart chart;
  private final Map<String, Path> secrets;
  private final Path clientCa;
  private final String volumes = "kvorum-chart-it-" + UUID.randomUUID().toString().substring(0, 8);

  private ChartCluster(RenderedChart chart, Map<String, Path> secrets, Path clientCa) {
    this.chart = chart;
    this.secrets = secrets;
    this.clientCa = clientCa;
    for (int i = 0; i < chart.replicas(); i++) {
      pods.add(new ChartPod(chart, i, network, volumes, freePort(), secrets, clientCa));
    }
  }

  /** Starts every pod of the chart at once and returns when all are ready. */
  static ChartCluster start(RenderedChart chart) {
    return start(chart, Map.of(), null);
  }

  /**
   * As {@link #start(RenderedChart)}, the Secrets the pods mount given as directories of their
   * files by the Secret's name, and the CA that clients trust when the pods serve HTTPS (null for
   * plain HTTP).
   */
  static ChartCluster start(RenderedChart chart, Map<String, Path> secrets, Path clientCa) {
    ChartCluster cluster = new ChartCluster(chart, secrets, clientCa);
    try {
      Startables.deepStart(cluster.pods.stream().map(ChartPod::create)).join();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  ChartPod pod(int i) {
    return pods.get(i);
  }

  /**
   * One more pod, as the StatefulSet controller creates it when {@code replicas} is raised by one
   * ({@code kubectl scale}, or {@code helm upgrade} with a larger {@code replicaCount}): the next
   * ordinal, from the same pod template, with a new claim. Returns once it is ready.
   */
  ChartPod scaleUp() {
    ChartPod pod =
        new ChartPod(chart, pods.size(), network, volumes, freePort(), secrets, clientCa);
    pods.add(pod);
    pod.create().start();
    return pod;
  }

  @Override
  public int size() {
    return pods.size();
  }

  @Override
  public KvorumClient client(int i) {
    return pods.get(i).client();
  }

  /** Waits until every pod sees every member up. */
  void awaitMembersUp() {
    awaitMembersUp(Duration.ofSeconds(60));
  }

  /** Waits until every pod sees every member up, for as long as {@code within}. */
  void awaitMembersUp(Duration within) {
    Awaitility.await("every member up in every pod's view")
        .atMost(within)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              for (int i = 0; i < pods.size(); i++) {
                for (JsonNode member : clusterView(i).path("nodes")) {
                  if (!"up".equals(member.path("state").asText())) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  /** Waits until no pod holds hints for pod {@code i}: it has every write it missed. */
  void awaitHintsDelivered(int i) {
    String name = pods.get(i).name();
    Awaitility.await("hints for " + name + " delivered")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              long pending = 0;
              for (int j = 0; j < pods.size(); j++) {
                for (JsonNode member : clusterView(j).path("nodes")) {
                  if (name.equals(member.path("id").asText())) {
                    pending += member.path("hintsPending").asLong();
                  }
                }
              }
              return pending == 0;
            });
  }

  /**
   * Runs the chart's {@code helm test} pod on the pods' network, as {@code helm test} does, and
   * returns once it exited.
   */
  ChartHookPod.Outcome helmTest() {
    return new ChartHookPod(chart.testPod(), network, secrets).run(Duration.ofMinutes(2));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    pods.forEach(ChartPod::close);
    network.close();
  }
}
