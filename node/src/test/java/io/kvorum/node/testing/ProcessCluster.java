package io.kvorum.node.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.BatchItemResult;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.config.TestIntervals;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;

/**
 * A cluster of real node processes on 127.0.0.1 ({@code node-0}…), started from the fat jar with
 * the same {@code --peers}, each of which can be killed and started again on its data.
 */
public final class ProcessCluster implements AutoCloseable {
  private final Path root;
  private final int[] httpPorts;
  private final int[] grpcPorts;
  private final String peers;
  private final List<String> extraFlags;
  private final NodeProcess[] nodes;
  private final Map<Integer, Map<String, String>> environments = new HashMap<>();
  private final Map<Integer, List<String>> nodeFlags = new HashMap<>();
  private final Map<Integer, Path> jars = new HashMap<>();
  private Path logs;
  private String jvmProperties = "";

  public ProcessCluster(Path root, int size, String... extraFlags) {
    this.root = root;
    this.logs = root.resolve("logs");
    this.httpPorts = new int[size];
    this.grpcPorts = new int[size];
    this.extraFlags = List.of(extraFlags);
    this.nodes = new NodeProcess[size];
    List<String> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      httpPorts[i] = NodeProcess.freePort();
      grpcPorts[i] = NodeProcess.freePort();
      members.add("node-" + i + "=127.0.0.1:" + grpcPorts[i]);
    }
    this.peers = String.join(",", members);
  }

  /**
   * Node {@code i} runs with these environment variables too, e.g. {@code JAVA_TOOL_OPTIONS} for
   * options of its JVM; set before it starts.
   */
  public ProcessCluster environment(int i, Map<String, String> environment) {
    environments.put(i, Map.copyOf(environment));
    return this;
  }

  /**
   * Every node settles a membership change in 100 ms instead of twice its request timeout, and
   * gossips every 200 ms instead of every second ({@link TestIntervals}, test only): for scenarios
   * with no request in flight while a change runs, such as nodes started in zones, which move into
   * them one change at a time (six took 36 s with the node's own intervals). Set before they start.
   */
  public ProcessCluster quickMembershipChanges() {
    jvmProperties =
        "-D" + TestIntervals.SETTLE_TIME + "=100ms -D" + TestIntervals.GOSSIP + "=200ms";
    return this;
  }

  /** Node {@code i} runs with these flags too, e.g. {@code --zone a}; set before it starts. */
  public ProcessCluster flags(int i, String... flags) {
    nodeFlags.put(i, List.of(flags));
    return this;
  }

  /**
   * The nodes' output goes to {@code dir} instead of {@code <root>/logs}, e.g. off a file system
   * the test cuts the power of; set before they start.
   */
  public ProcessCluster logs(Path dir) {
    this.logs = dir;
    return this;
  }

  /**
   * Node {@code i} runs from {@code jar} (another release's) from its next start on; by default
   * from the jar under test.
   */
  public ProcessCluster jar(int i, Path jar) {
    jars.put(i, jar);
    return this;
  }

  /**
   * Starts every node and waits until all are ready, but those in {@code notAwaited}: 10 s per
   * node, at least 30 s. Nodes launched together share two cores, and nodes started in zones move
   * into them one membership change at a time, each waiting a gossip tick and the settle time (2x
   * the request timeout): six such nodes took about 30 s to be ready in CI.
   */
  public ProcessCluster start(int... notAwaited) {
    for (int i = 0; i < nodes.length; i++) {
      launch(i);
    }
    long deadline =
        System.nanoTime() + Duration.ofSeconds(Math.max(30, 10L * nodes.length)).toNanos();
    for (int i = 0; i < nodes.length; i++) {
      int node = i;
      if (IntStream.of(notAwaited).noneMatch(n -> n == node)) {
        nodes[i].awaitReady(
            Duration.ofNanos(
                Math.max(deadline - System.nanoTime(), Duration.ofSeconds(1).toNanos())));
      }
    }
    return this;
  }

  private void launch(int i) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--node-id",
                "node-" + i,
                "--http-host",
                "127.0.0.1",
                "--http-port",
                String.valueOf(httpPorts[i]),
                "--grpc-port",
                String.valueOf(grpcPorts[i]),
                "--data-dir",
                root.resolve("node-" + i).toString(),
                "--peers",
                peers));
    args.addAll(extraFlags);
    args.addAll(nodeFlags.getOrDefault(i, List.of()));
    Map<String, String> environment = new HashMap<>(environments.getOrDefault(i, Map.of()));
    if (!jvmProperties.isEmpty()) {
      environment.merge("JAVA_TOOL_OPTIONS", jvmProperties, (given, ours) -> given + " " + ours);
    }
    nodes[i] =
        NodeProcess.launch(
            jars.getOrDefault(i, NodeProcess.jar()),
            logs,
            httpPorts[i],
            environment,
            args.toArray(String[]::new));
  }

  /** Starts node {@code i} (again, on its data) and waits until it is ready. */
  public void restart(int i) {
    launch(i);
    nodes[i].awaitReady();
  }

  /** SIGKILL to every node at once, as a power cut stops them, then waits until each is gone. */
  public void killAll() throws InterruptedException {
    for (NodeProcess node : nodes) {
      ProcessHandle.of(node.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (NodeProcess node : nodes) {
      node.kill();
    }
  }

  /** Node {@code i}'s inter-node port. */
  public int grpcPort(int i) {
    return grpcPorts[i];
  }

  /** Node {@code i}'s HTTP port. */
  public int httpPort(int i) {
    return httpPorts[i];
  }

  /** Starts node {@code i} again on its data without waiting for it to be ready. */
  public NodeProcess relaunch(int i) {
    launch(i);
    return nodes[i];
  }

  public NodeProcess node(int i) {
    return nodes[i];
  }

  public KvorumClient client(int i) {
    return nodes[i].client();
  }

  /**
   * Stores {@code values} through node {@code i} in batches at {@code consistency}, and fails the
   * test unless every item succeeded: how a test loads its data when the load is not what it tests.
   */
  public void putAll(int i, Map<String, byte[]> values, Consistency consistency) {
    try (KvorumClient kv = client(i)) {
      assertThat(kv.putAll(values, consistency, null))
          .as("puts through node-%d", i)
          .allMatch(BatchItemResult::succeeded);
    }
  }

  /**
   * Waits until each node takes a write through itself at {@code ack=from=}size, so that its
   * streams to every other node are up: a node of the previous release (0.1.0) reports ready before
   * they are, and a request in those first seconds failed with 504 (CI: "node-2: its stream failed:
   * UNAVAILABLE"). This release's nodes need no such wait. The probe keys ({@code probe/<i>}) stay.
   */
  public ProcessCluster awaitStreams() {
    Consistency all = Consistency.of(nodes.length, nodes.length);
    for (int i = 0; i < nodes.length; i++) {
      byte[] key = ("probe/" + i).getBytes(StandardCharsets.UTF_8);
      try (KvorumClient kv = client(i)) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptionsInstanceOf(KvorumClientException.NotEnoughReplicas.class)
            .untilAsserted(() -> kv.put(key, key, all));
      }
    }
    return this;
  }

  @Override
  public void close() throws InterruptedException {
    for (NodeProcess node : nodes) {
      if (node != null) {
        node.close();
      }
    }
  }
}
