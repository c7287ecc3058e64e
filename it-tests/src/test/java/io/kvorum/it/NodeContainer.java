package io.kvorum.it;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import io.kvorum.api.KvorumClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * One kvorum node in a container, with the host name {@code node-i} (its node id, as a pod's in a
 * StatefulSet) and that alias on the cluster network. Its HTTP port is published on a fixed host
 * port, so it stays the same across restarts; it is also on an access network, so the host still
 * reaches it when it is cut from the cluster network.
 *
 * <p>Faults go through the Docker API on the same container: {@link #kill()} (SIGKILL), {@link
 * #stop()} (SIGTERM, then the exit code), {@link #start()}, {@link #pause()}, {@link
 * #disconnect()}; {@link #wipe()} replaces it with a fresh container and an empty volume.
 */
final class NodeContainer implements AutoCloseable {
  private static final String DATA_DIR = "/var/lib/kvorum";
  private static final String FILLER = DATA_DIR + "/filler";

  /** The user the image runs the node as (docker/Dockerfile), owner of a tmpfs data directory. */
  private static final int NODE_UID = 10001;

  private final int index;
  private final Network cluster;
  private final Network access;
  private final int hostPort;
  private Map<String, String> env;
  private final boolean smallDisk;
  private final DockerClient docker = DockerClientFactory.instance().client();
  private GenericContainer<?> container;

  NodeContainer(int index, Network cluster, Network access, int hostPort, Map<String, String> env) {
    this(index, cluster, access, hostPort, env, false);
  }

  /**
   * @param smallDisk the data directory on a 64 MiB tmpfs instead of a volume, to be filled with
   *     {@link #fillDisk()}
   */
  NodeContainer(
      int index,
      Network cluster,
      Network access,
      int hostPort,
      Map<String, String> env,
      boolean smallDisk) {
    this.index = index;
    this.cluster = cluster;
    this.access = access;
    this.hostPort = hostPort;
    this.env = env;
    this.smallDisk = smallDisk;
  }

  String name() {
    return "node-" + index;
  }

  /** Creates and starts a fresh container (new, empty volume); does not wait for readiness. */
  @SuppressWarnings("resource")
  void create() {
    container =
        new GenericContainer<>(NodeImage.name())
            .withNetwork(cluster)
            .withNetworkAliases(name())
            .withEnv(env)
            .withExposedPorts(8080)
            .withCreateContainerCmdModifier(
                cmd -> {
                  cmd.withHostName(name());
                  cmd.getHostConfig()
                      .withPortBindings(
                          new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(8080)));
                })
            .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofSeconds(60)));
    if (smallDisk) {
      container.withTmpFs(Map.of(DATA_DIR, "rw,size=64m,uid=" + NODE_UID + ",gid=" + NODE_UID));
    }
    container.start();
    docker.connectToNetworkCmd().withNetworkId(access.getId()).withContainerId(id()).exec();
  }

  /**
   * Fills the small disk of the data directory to the last byte with a file beside the data (the
   * node's next write that needs a new block fails with "no space").
   */
  void fillDisk() throws Exception {
    exec("busybox head -c 134217728 /dev/zero > " + FILLER + " ; busybox df " + DATA_DIR);
  }

  /** Deletes the file {@link #fillDisk()} made: the space is free again. */
  void freeDisk() throws Exception {
    exec("busybox rm " + FILLER + " && busybox df " + DATA_DIR);
  }

  private void exec(String command) throws Exception {
    Container.ExecResult result = container.execInContainer("sh", "-c", command);
    System.out.printf("[%s] %s: %s%s%n", name(), command, result.getStdout(), result.getStderr());
  }

  /** Runs {@code command} in the running container, as {@code kubectl exec} would. */
  Container.ExecResult run(String... command) throws Exception {
    return container.execInContainer(command);
  }

  /**
   * Waits until the node's process ends by itself.
   *
   * @return its exit code
   */
  long awaitExit(Duration within) {
    Awaitility.await(name() + " exited")
        .atMost(within)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                !Boolean.TRUE.equals(
                    docker.inspectContainerCmd(id()).exec().getState().getRunning()));
    return docker.inspectContainerCmd(id()).exec().getState().getExitCodeLong();
  }

  /**
   * Starts the stopped container again, on its volume, for a node expected to refuse to start.
   *
   * @return its exit code
   */
  long startExpectingExit() {
    docker.startContainerCmd(id()).exec();
    return awaitExit(Duration.ofSeconds(60));
  }

  /** Waits until the node reports ready, for as long as {@code within}. */
  void awaitReady(Duration within) {
    try (KvorumClient client = client()) {
      Awaitility.await(name() + " ready")
          .atMost(within)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(client::ready);
    }
  }

  String id() {
    return container.getContainerId();
  }

  /** Docker's health status of the container ("starting", "healthy", "unhealthy"). */
  String health() {
    return docker.inspectContainerCmd(id()).exec().getState().getHealth().getStatus();
  }

  int httpPort() {
    return hostPort;
  }

  KvorumClient client() {
    return KvorumClient.connect("127.0.0.1", hostPort, Duration.ofSeconds(5));
  }

  void awaitReady() {
    try (KvorumClient client = client()) {
      Awaitility.await(name() + " ready")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(client::ready);
    }
  }

  /** SIGKILL: no shutdown at all. */
  void kill() {
    docker.killContainerCmd(id()).withSignal("KILL").exec();
    awaitStopped();
  }

  /**
   * SIGTERM, as {@code docker stop} and Kubernetes send it.
   *
   * @return the node's exit code
   */
  long stop() {
    docker.stopContainerCmd(id()).withTimeout(60).exec();
    awaitStopped();
    return docker.inspectContainerCmd(id()).exec().getState().getExitCodeLong();
  }

  /** Starts the stopped container again, on its volume, and waits until the node is ready. */
  void start() {
    docker.startContainerCmd(id()).exec();
    awaitReady();
  }

  void pause() {
    docker.pauseContainerCmd(id()).exec();
  }

  void unpause() {
    docker.unpauseContainerCmd(id()).exec();
  }

  /** Cuts the node from the cluster network: its peers lose it, the host still reaches it. */
  void disconnect() {
    docker.disconnectFromNetworkCmd().withNetworkId(cluster.getId()).withContainerId(id()).exec();
  }

  void reconnect() {
    docker
        .connectToNetworkCmd()
        .withNetworkId(cluster.getId())
        .withContainerId(id())
        .withContainerNetwork(new ContainerNetwork().withAliases(name()))
        .exec();
  }

  /** Removes the container and its volume, then starts a fresh one with the same identity. */
  void wipe() {
    remove();
    create();
    awaitReady();
  }

  /**
   * Removes the container and its volume, then starts a fresh one with the same identity and these
   * environment variables changed; does not wait for readiness.
   */
  void wipeWith(Map<String, String> changed) {
    Map<String, String> next = new HashMap<>(env);
    next.putAll(changed);
    env = Map.copyOf(next);
    remove();
    create();
  }

  /** The body of {@code GET /v0/status}, whatever its status. */
  String status() {
    try (KvorumClient client = client()) {
      return new String(
          client.send(HttpRequest.newBuilder(client.baseUri().resolve("/v0/status")).GET()).body(),
          StandardCharsets.UTF_8);
    }
  }

  String logs() {
    return container.getLogs();
  }

  private void awaitStopped() {
    Awaitility.await(name() + " stopped")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                !Boolean.TRUE.equals(
                    docker.inspectContainerCmd(id()).exec().getState().getRunning()));
  }

  private void remove() {
    if (container != null) {
      docker.removeContainerCmd(id()).withForce(true).withRemoveVolumes(true).exec();
      container = null;
    }
  }

  @Override
  public void close() {
    try {
      remove();
    } catch (RuntimeException e) {
      // already gone
    }
  }
}
