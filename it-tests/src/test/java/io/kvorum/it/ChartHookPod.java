package io.kvorum.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;

/**
 * A one-container hook pod of the rendered chart (its {@code helm test} pod) run to its end on the
 * pods' network, made from its spec alone: image, command, environment values, user, read-only root
 * filesystem, capabilities, memory limit, emptyDir volumes as tmpfs and secret volumes from the
 * test's Secret directories.
 */
final class ChartHookPod {
  /** How the pod ended: its container's exit code and log. */
  record Outcome(long exitCode, String logs) {}

  private final JsonNode pod;
  private final Network network;
  private final Map<String, Path> secrets;
  private final DockerClient docker = DockerClientFactory.instance().client();

  ChartHookPod(JsonNode pod, Network network, Map<String, Path> secrets) {
    this.pod = pod;
    this.network = network;
    this.secrets = secrets;
  }

  /** Starts the pod, waits up to {@code within} for it to exit, and removes its container. */
  @SuppressWarnings("resource")
  Outcome run(Duration within) {
    JsonNode spec = pod.path("spec").path("containers");
    if (spec.size() != 1) {
      throw new IllegalStateException("expected one container in the hook pod, got " + spec);
    }
    JsonNode container = spec.get(0);
    GenericContainer<?> hook =
        new GenericContainer<>(container.path("image").asText())
            .withNetwork(network)
            .withEnv(environment(container))
            .withCreateContainerCmdModifier(cmd -> configure(cmd, container))
            // Started is enough: the pod's exit code is what the test reads, not a launch failure.
            .withStartupCheckStrategy(
                new StartupCheckStrategy() {
                  @Override
                  public StartupStatus checkStartupState(DockerClient client, String id) {
                    return StartupStatus.SUCCESSFUL;
                  }
                });
    for (JsonNode mount : container.path("volumeMounts")) {
      if (volume(mount.path("name").asText()).has("emptyDir")) {
        hook.withTmpFs(Map.of(mount.path("mountPath").asText(), "rw,nosuid,nodev,mode=1777"));
      }
    }
    hook.start();
    try {
      String id = hook.getContainerId();
      Awaitility.await(pod.path("metadata").path("name").asText() + " exited")
          .atMost(within)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () ->
                  !Boolean.TRUE.equals(
                      docker.inspectContainerCmd(id).exec().getState().getRunning()));
      return new Outcome(
          docker.inspectContainerCmd(id).exec().getState().getExitCodeLong(), hook.getLogs());
    } finally {
      hook.stop();
    }
  }

  private void configure(CreateContainerCmd cmd, JsonNode container) {
    cmd.withEntrypoint(texts(container.path("command")));
    cmd.withCmd(texts(container.path("args")));
    JsonNode podSecurity = pod.path("spec").path("securityContext");
    JsonNode security = container.path("securityContext");
    JsonNode uid = security.has("runAsUser") ? security : podSecurity;
    if (uid.has("runAsUser")) {
      cmd.withUser(
          uid.path("runAsUser").asText()
              + (uid.has("runAsGroup") ? ":" + uid.path("runAsGroup").asText() : ""));
    }
    HostConfig host = cmd.getHostConfig();
    host.withReadonlyRootfs(security.path("readOnlyRootFilesystem").asBoolean(false));
    if (podSecurity.has("fsGroup")) {
      host.withGroupAdd(List.of(podSecurity.path("fsGroup").asText()));
    }
    List<Capability> drop = new ArrayList<>();
    security
        .path("capabilities")
        .path("drop")
        .forEach(c -> drop.add(Capability.valueOf(c.asText())));
    host.withCapDrop(drop.toArray(Capability[]::new));
    JsonNode limits = container.path("resources").path("limits");
    if (limits.has("memory")) {
      long memory = RenderedChart.bytes(limits.path("memory").asText());
      host.withMemory(memory).withMemorySwap(memory);
    }
    List<Bind> binds = new ArrayList<>();
    for (JsonNode mount : container.path("volumeMounts")) {
      JsonNode volume = volume(mount.path("name").asText());
      if (volume.has("secret")) {
        String secret = volume.path("secret").path("secretName").asText();
        Path files = secrets.get(secret);
        if (files == null) {
          throw new IllegalStateException("the test has no files for Secret " + secret);
        }
        binds.add(
            new Bind(
                files.toAbsolutePath().toString(),
                new Volume(mount.path("mountPath").asText()),
                AccessMode.ro));
      } else if (!volume.has("emptyDir")) {
        throw new IllegalStateException("the test cannot emulate volume " + volume);
      }
    }
    host.withBinds(binds);
  }

  private JsonNode volume(String name) {
    for (JsonNode declared : pod.path("spec").path("volumes")) {
      if (name.equals(declared.path("name").asText())) {
        return declared;
      }
    }
    throw new IllegalStateException("no volume " + name + " in the hook pod");
  }

  private static Map<String, String> environment(JsonNode container) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode variable : container.path("env")) {
      if (!variable.has("value")) {
        throw new IllegalStateException("the test cannot emulate " + variable);
      }
      env.put(variable.path("name").asText(), variable.path("value").asText());
    }
    return env;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(t -> texts.add(t.asText()));
    return texts;
  }
}
