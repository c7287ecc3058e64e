package io.kvorum.it;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.config.TestIntervals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.awaitility.Awaitility;
import org.testcontainers.containers.Network;

/**
 * A cluster of node containers {@code node-0}…, wired the way the Helm chart wires pods: each
 * node's id is its host name, and {@code KVORUM_PEERS} lists every node by its DNS name on the
 * cluster network.
 */
final class DockerCluster implements ClusterClients, AutoCloseable {
  /**
   * The JVM options of every node: a small heap, C1 alone (short-lived nodes on two cores spend
   * more CPU compiling with C2 than they gain, as the process tests' nodes), and hints replayed
   * every second instead of the node's ten ({@code TestIntervals.HINT_REPLAY}, test only), so that
   * a scenario waiting for a thawed or reconnected node's hints waits about a second for them, not
   * up to ten.
   */
  static final String JAVA_OPTS =
      "-Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED"
          + " -D"
          + TestIntervals.HINT_REPLAY
          + "=1s";

  /**
   * The networks, named so that the access network's name sorts first. Docker publishes a
   * container's ports on the network whose name sorts first among those it is on (libnetwork's
   * gateway endpoint; checked on the engine CI runs), and moves them when that changes. With the
   * random names of {@link Network#newNetwork()}, half the clusters had their ports on the cluster
   * network: cutting a node from it broke the host's open connections to that node (a change feed
   * went silent through the cut), and reconnecting it mended them only when Docker gave the node
   * its old address back.
   */
  private final String networks = "kvorum-" + UUID.randomUUID().toString().substring(0, 8);

  private final Network access = network(networks + "-a-access");
  private final Network cluster = network(networks + "-b-cluster");
  private final List<NodeContainer> nodes = new ArrayList<>();
  private final Map<String, String> env = new HashMap<>();

  private static Network network(String name) {
    return Network.builder().createNetworkCmdModifier(cmd -> cmd.withName(name)).build();
  }

  private DockerCluster(int size, Map<String, String> extraEnv, Set<Integer> smallDisks) {
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      peers.add("node-" + i + "=node-" + i + ":9090");
    }
    env.put("KVORUM_PEERS", String.join(",", peers));
    env.put("JAVA_OPTS", JAVA_OPTS);
    env.put("KVORUM_BLOCK_CACHE_SIZE", "16MiB");
    env.put("KVORUM_WRITE_BUFFER_SIZE", "8MiB");
    env.putAll(extraEnv);
    for (int i = 0; i < size; i++) {
      nodes.add(
          new NodeContainer(
              i, cluster, access, freePort(), Map.copyOf(env), smallDisks.contains(i)));
    }
  }

  /** Starts {@code size} nodes and waits until every one is ready. */
  static DockerCluster start(int size, Map<String, String> extraEnv) {
    return start(size, extraEnv, Set.of());
  }

  /**
   * Starts {@code size} nodes at once (as a StatefulSet with {@code podManagementPolicy: Parallel}
   * starts pods), those of {@code smallDisks} with their data on a 64 MiB tmpfs, and waits until
   * every one is ready.
   */
  static DockerCluster start(int size, Map<String, String> extraEnv, Set<Integer> smallDisks) {
    DockerCluster cluster = new DockerCluster(size, extraEnv, smallDisks);
    ExecutorService starting = Executors.newFixedThreadPool(size);
    try {
      CompletableFuture.allOf(
              cluster.nodes.stream()
                  .map(node -> CompletableFuture.runAsync(node::create, starting))
                  .toArray(CompletableFuture[]::new))
          .join();
      cluster.nodes.forEach(NodeContainer::awaitReady);
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    } finally {
      starting.shutdown();
    }
  }

  NodeContainer node(int i) {
    return nodes.get(i);
  }

  /**
   * Adds node {@code node-<size>}, started with an empty volume and {@code KVORUM_JOIN} naming
   * node-0 instead of {@code KVORUM_PEERS} (as a pod beyond the chart's seed set), and its DNS
   * alias as the address the members dial; does not wait for it to be ready.
   */
  NodeContainer addJoining() {
    Map<String, String> joining = new HashMap<>(env);
    joining.remove("KVORUM_PEERS");
    joining.put("KVORUM_JOIN", "node-0:9090");
    joining.put("KVORUM_ADVERTISE_HOST", "node-" + nodes.size());
    NodeContainer node =
        new NodeContainer(nodes.size(), cluster, access, freePort(), Map.copyOf(joining), false);
    nodes.add(node);
    node.create();
    return node;
  }

  /**
   * Forgets the last node (it left the cluster): the cluster no longer counts or asks it. Its
   * container stays for the caller, who closes it.
   */
  NodeContainer forgetLast() {
    return nodes.removeLast();
  }

  @Override
  public int size() {
    return nodes.size();
  }

  @Override
  public KvorumClient client(int i) {
    return nodes.get(i).client();
  }

  /** How many hints the other nodes hold for node {@code i}, from their {@code /v0/cluster}. */
  long hintsPendingFor(int i) {
    long pending = 0;
    for (int j = 0; j < nodes.size(); j++) {
      if (j == i) {
        continue;
      }
      pending += clusterView(j).path("nodes").get(i).path("hintsPending").asLong();
    }
    return pending;
  }

  /** Waits until no node holds hints for node {@code i}: it has every write it missed. */
  void awaitHintsDelivered(int i) {
    Awaitility.await("hints for node-" + i + " delivered")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> hintsPendingFor(i) == 0);
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
    nodes.forEach(NodeContainer::close);
    cluster.close();
    access.close();
  }
}
