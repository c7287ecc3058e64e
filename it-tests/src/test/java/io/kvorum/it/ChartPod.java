package io.kvorum.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.Volume;
import io.kvorum.api.KvorumClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;

/**
 * One pod of the rendered StatefulSet as a container, made from the pod spec alone: image, command
 * and args, environment (the downward API resolved), ports, the readiness probe as the wait
 * strategy, the startup probe's budget as its timeout, the security context (user, read-only root
 * filesystem, capabilities, no privilege escalation), memory and CPU limits, emptyDir volumes as
 * tmpfs and the PersistentVolumeClaim as a named volume that outlives the container. The {@code
 * node-zone} init container's work is done for it: its volume holds the zone of the pod's node
 * ({@link #nodeZone}). Its host name is the pod name and its aliases on the network are the pod's
 * DNS names.
 *
 * <p>Its HTTP port is published on a fixed host port, so clients keep reaching it when it is
 * deleted and created again, as the StatefulSet controller does with a pod: same name, same claim.
 */
final class ChartPod implements AutoCloseable {
  /** How a graceful deletion went: the preStop hook, then SIGTERM within the grace period. */
  record GracefulStop(Duration preStop, Duration total, long exitCode, String logs) {}

  private final RenderedChart chart;
  private final int ordinal;
  private final Network network;
  private final String volumePrefix;
  private final int hostPort;
  private final Map<String, Path> secrets;
  private final Path clientCa;
  private final DockerClient docker = DockerClientFactory.instance().client();
  private GenericContainer<?> container;

  /**
   * @param secrets the directories holding each Secret's files by the Secret's name, for secret
   *     volumes (mounted read-only, as the kubelet projects a Secret)
   * @param clientCa the CA a client trusts when the pod serves HTTPS ({@code tls.http}); null for
   *     plain HTTP
   */
  ChartPod(
      RenderedChart chart,
      int ordinal,
      Network network,
      String volumePrefix,
      int hostPort,
      Map<String, Path> secrets,
      Path clientCa) {
    this.chart = chart;
    this.secrets = secrets;
    this.clientCa = clientCa;
    this.ordinal = ordinal;
    this.network = network;
    this.volumePrefix = volumePrefix;
    this.hostPort = hostPort;
  }

  String name() {
    return chart.podName(ordinal);
  }

  /** A new container for this pod, not started yet. */
  @SuppressWarnings("resource")
  GenericContainer<?> create() {
    JsonNode spec = chart.container();
    JsonNode readiness = spec.path("readinessProbe").path("httpGet");
    int http = chart.containerPort(readiness.path("port"));
    List<String> names = chart.dnsNames(ordinal);
    // The client Service's names too: Docker answers a name several containers share with all of
    // them, as the Service's DNS name leads to its ready pods.
    List<String> aliases = new ArrayList<>(names);
    aliases.addAll(chart.clientServiceDnsNames());
    container =
        new GenericContainer<>(spec.path("image").asText())
            .withNetwork(network)
            .withNetworkAliases(aliases.toArray(String[]::new))
            .withEnv(environment(spec))
            .withExposedPorts(http)
            .withCreateContainerCmdModifier(cmd -> configure(cmd, spec, http, names.get(0)))
            .waitingFor(
                new ReadinessProbeWait(
                        readiness.path("scheme").asText("HTTP"),
                        readiness.path("path").asText(),
                        http,
                        clientCa)
                    .withStartupTimeout(startupBudget(spec)));
    if (spec.has("args")) {
      container.withCommand(texts(spec.path("args")).toArray(String[]::new));
    }
    for (JsonNode mount : spec.path("volumeMounts")) {
      String path = mount.path("mountPath").asText();
      if (zoneVolume().filter(mount.path("name").asText()::equals).isPresent()) {
        continue; // bound in configure(), as the init container left it
      }
      emptyDir(mount.path("name").asText())
          .ifPresent(
              sizeLimit ->
                  container.withTmpFs(
                      Map.of(
                          path,
                          // An emptyDir is not noexec (Docker's tmpfs is by default): RocksDB
                          // loads its library from /tmp.
                          "rw,exec,nosuid,nodev,mode=1777"
                              + (sizeLimit.isEmpty()
                                  ? ""
                                  : ",size=" + RenderedChart.bytes(sizeLimit)))));
    }
    return container;
  }

  private void configure(CreateContainerCmd cmd, JsonNode spec, int http, String fqdn) {
    cmd.withHostName(name());
    cmd.withDomainName(fqdn.substring(name().length() + 1));
    if (spec.has("command")) {
      cmd.withEntrypoint(texts(spec.path("command")));
    }
    user().ifPresent(cmd::withUser);
    HostConfig host = cmd.getHostConfig();
    host.withPortBindings(new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(http)));
    JsonNode security = spec.path("securityContext");
    host.withReadonlyRootfs(security.path("readOnlyRootFilesystem").asBoolean(false));
    if (!security.path("allowPrivilegeEscalation").asBoolean(true)) {
      host.withSecurityOpts(List.of("no-new-privileges"));
    }
    List<Capability> drop = new ArrayList<>();
    security
        .path("capabilities")
        .path("drop")
        .forEach(c -> drop.add(Capability.valueOf(c.asText())));
    host.withCapDrop(drop.toArray(Capability[]::new));
    JsonNode limits = spec.path("resources").path("limits");
    if (limits.has("memory")) {
      long memory = RenderedChart.bytes(limits.path("memory").asText());
      host.withMemory(memory).withMemorySwap(memory);
    }
    if (limits.has("cpu")) {
      host.withNanoCPUs(Math.round(RenderedChart.quantity(limits.path("cpu").asText()) * 1e9));
    }
    List<Bind> binds = new ArrayList<>();
    for (JsonNode mount : spec.path("volumeMounts")) {
      String volume = mount.path("name").asText();
      Optional<String> secret = secretName(volume);
      if (zoneVolume().filter(volume::equals).isPresent()) {
        binds.add(
            new Bind(
                zoneFiles().toString(),
                new Volume(mount.path("mountPath").asText()),
                AccessMode.ro));
      } else if (chart.claimTemplate(volume).isPresent()) {
        binds.add(new Bind(claimVolume(volume), new Volume(mount.path("mountPath").asText())));
      } else if (secret.isPresent() && secrets.containsKey(secret.get())) {
        binds.add(
            new Bind(
                secrets.get(secret.get()).toAbsolutePath().toString(),
                new Volume(mount.path("mountPath").asText()),
                AccessMode.ro));
      } else if (emptyDir(volume).isEmpty()) {
        throw new IllegalStateException("the test cannot emulate volume " + volume);
      }
    }
    host.withBinds(binds);
  }

  /** The pod's user as Docker takes it, the container's security context over the pod's. */
  private Optional<String> user() {
    JsonNode pod = chart.podSpec().path("securityContext");
    JsonNode own = chart.container().path("securityContext");
    JsonNode uid = own.has("runAsUser") ? own.path("runAsUser") : pod.path("runAsUser");
    JsonNode gid = own.has("runAsGroup") ? own.path("runAsGroup") : pod.path("runAsGroup");
    boolean nonRoot =
        own.path("runAsNonRoot").asBoolean(false) || pod.path("runAsNonRoot").asBoolean(false);
    if (nonRoot && uid.isInt() && uid.asInt() == 0) {
      throw new IllegalStateException("runAsNonRoot with runAsUser 0: the kubelet would refuse");
    }
    if (uid.isMissingNode()) {
      return Optional.empty();
    }
    return Optional.of(uid.asText() + (gid.isMissingNode() ? "" : ":" + gid.asText()));
  }

  /**
   * The zone of the Kubernetes node this pod runs on: the test's nodes are one per zone, {@code
   * zone-0} to {@code zone-2}, and pod {@code i} runs on node {@code i mod 3}.
   */
  static String nodeZone(int ordinal) {
    return "zone-" + ordinal % 3;
  }

  /**
   * The emptyDir volume the {@code node-zone} init container writes the node's zone into, if the
   * pod spec has that init container.
   */
  private Optional<String> zoneVolume() {
    for (JsonNode init : chart.podSpec().path("initContainers")) {
      if ("node-zone".equals(init.path("name").asText())) {
        for (JsonNode mount : init.path("volumeMounts")) {
          if (emptyDir(mount.path("name").asText()).isPresent()
              && !"/tmp".equals(mount.path("mountPath").asText())) {
            return Optional.of(mount.path("name").asText());
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * What the {@code node-zone} init container leaves in its volume, written here instead: no API
   * server runs here to ask for the node's labels (the command itself is {@code
   * NodeZoneCommandTest}'s, against a fake one).
   */
  private Path zoneFiles() {
    try {
      Path dir = Files.createTempDirectory("kvorum-chart-it-zone");
      Files.writeString(dir.resolve("zone"), nodeZone(ordinal));
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.setPosixFilePermissions(
          dir.resolve("zone"), PosixFilePermissions.fromString("rw-r--r--"));
      // Bind-mounted while the test runs; gone when its JVM exits (the file first: reverse order).
      dir.toFile().deleteOnExit();
      dir.resolve("zone").toFile().deleteOnExit();
      return dir.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The PersistentVolumeClaim {@code <claim>-<pod>} as a Docker volume. */
  String claimVolume(String claim) {
    return volumePrefix + "-" + claim + "-" + name();
  }

  /** The Secret a secret volume by that name projects, if it is one. */
  private Optional<String> secretName(String volume) {
    for (JsonNode declared : chart.podSpec().path("volumes")) {
      if (volume.equals(declared.path("name").asText()) && declared.has("secret")) {
        return Optional.of(declared.path("secret").path("secretName").asText());
      }
    }
    return Optional.empty();
  }

  /** The sizeLimit ("" for none) of the emptyDir volume by that name, if it is one. */
  private Optional<String> emptyDir(String volume) {
    for (JsonNode declared : chart.podSpec().path("volumes")) {
      if (volume.equals(declared.path("name").asText()) && declared.has("emptyDir")) {
        return Optional.of(declared.path("emptyDir").path("sizeLimit").asText(""));
      }
    }
    return Optional.empty();
  }

  /** The environment, with the downward API fields a StatefulSet pod would get. */
  private Map<String, String> environment(JsonNode spec) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode variable : spec.path("env")) {
      String name = variable.path("name").asText();
      if (variable.has("value")) {
        env.put(name, variable.path("value").asText());
        continue;
      }
      String field = variable.path("valueFrom").path("fieldRef").path("fieldPath").asText();
      switch (field) {
        case "metadata.name" -> env.put(name, name());
        case "metadata.namespace" -> env.put(name, chart.namespace());
        default ->
            throw new IllegalStateException(
                "the test cannot emulate " + name + " from " + variable.path("valueFrom"));
      }
    }
    return env;
  }

  /** The startup probe's budget, period x failures: how long the kubelet lets a node start. */
  private static Duration startupBudget(JsonNode spec) {
    JsonNode startup = spec.path("startupProbe");
    return Duration.ofSeconds(
        (long) startup.path("periodSeconds").asInt(10) * startup.path("failureThreshold").asInt(3));
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(t -> texts.add(t.asText()));
    return texts;
  }

  /** Creates and starts the pod's container; returns once its readiness probe passes. */
  void start() {
    create().start();
  }

  int httpPort() {
    return hostPort;
  }

  KvorumClient client() {
    if (clientCa == null) {
      return KvorumClient.connect("127.0.0.1", hostPort, Duration.ofSeconds(5));
    }
    Duration timeout = Duration.ofSeconds(5);
    return KvorumClient.builder()
        .seed("127.0.0.1", hostPort)
        .discovery(false)
        .maxAttempts(1)
        .deadline(timeout)
        .attemptTimeout(timeout)
        .tlsCa(clientCa)
        .build();
  }

  /** Docker's health status of the container, from the image's {@code HEALTHCHECK}. */
  String health() {
    return docker.inspectContainerCmd(id()).exec().getState().getHealth().getStatus();
  }

  /** The HTTP status of one of the container's httpGet probes, asked from the host. */
  int probe(String probe) {
    String path = chart.container().path(probe).path("httpGet").path("path").asText();
    try (KvorumClient client = client()) {
      return client
          .send(HttpRequest.newBuilder(URI.create(client.baseUri() + path)).GET())
          .statusCode();
    }
  }

  /** The pod is force-deleted: SIGKILL, and its container is gone (its claim stays). */
  void kill() {
    docker.killContainerCmd(id()).withSignal("KILL").exec();
    awaitStopped();
    remove();
  }

  /**
   * The pod is deleted as the kubelet does it: the preStop hook runs to its end, then SIGTERM, and
   * SIGKILL if the node is still running when the grace period is over. The container is removed
   * after; its claim stays.
   */
  GracefulStop deleteGracefully() throws IOException, InterruptedException {
    long grace = chart.terminationGracePeriodSeconds();
    long start = System.nanoTime();
    JsonNode hook = chart.container().path("lifecycle").path("preStop").path("exec");
    if (hook.has("command")) {
      Container.ExecResult result =
          container.execInContainer(texts(hook.path("command")).toArray(String[]::new));
      if (result.getExitCode() != 0) {
        throw new IllegalStateException("preStop failed: " + result);
      }
    }
    Duration preStop = Duration.ofNanos(System.nanoTime() - start);
    int left = (int) Math.max(1, grace - preStop.toSeconds());
    docker.stopContainerCmd(id()).withTimeout(left).exec();
    awaitStopped();
    Duration total = Duration.ofNanos(System.nanoTime() - start);
    long exit = docker.inspectContainerCmd(id()).exec().getState().getExitCodeLong();
    String logs = container.getLogs();
    remove();
    return new GracefulStop(preStop, total, exit, logs);
  }

  String logs() {
    return container.getLogs();
  }

  private String id() {
    return container.getContainerId();
  }

  private void awaitStopped() {
    Awaitility.await(name() + " stopped")
        .atMost(Duration.ofSeconds(chart.terminationGracePeriodSeconds() + 30))
        .until(
            () ->
                !Boolean.TRUE.equals(
                    docker.inspectContainerCmd(id()).exec().getState().getRunning()));
  }

  private void remove() {
    if (container != null) {
      docker.removeContainerCmd(id()).withForce(true).exec();
      container = null;
    }
  }

  /** Removes the container and the pod's claim. */
  @Override
  public void close() {
    try {
      remove();
    } catch (RuntimeException e) {
      // already gone
    }
    chart
        .container()
        .path("volumeMounts")
        .forEach(
            mount -> {
              String volume = mount.path("name").asText();
              if (chart.claimTemplate(volume).isPresent()) {
                try {
                  docker.removeVolumeCmd(claimVolume(volume)).exec();
                } catch (RuntimeException e) {
                  // never created
                }
              }
            });
  }
}
