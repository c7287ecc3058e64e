package io.kvorum.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Helm chart {@code helm/kvorum} rendered by {@code helm template}, and what a Kubernetes
 * cluster would make of it: the StatefulSet's pods, their names and DNS names under its headless
 * Service, their container spec. The tests start containers from this and nothing else, so that the
 * chart's wiring is what they test.
 */
final class RenderedChart {
  /** The DNS domain of the emulated cluster: Kubernetes' default, and the chart's. */
  static final String CLUSTER_DOMAIN = "cluster.local";

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Pattern QUANTITY = Pattern.compile("(\\d+(?:\\.\\d+)?)([a-zA-Z]*)");

  private final String namespace;
  private final List<JsonNode> resources;
  private final JsonNode statefulSet;

  private RenderedChart(String namespace, List<JsonNode> resources) {
    this.namespace = namespace;
    this.resources = resources;
    this.statefulSet = only("StatefulSet");
  }

  /** The helm binary: {@code KVORUM_HELM}, else {@code helm} on the {@code PATH}. */
  static Optional<Path> helm() {
    String configured = System.getenv("KVORUM_HELM");
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured);
      return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
    }
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "helm");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Runs {@code helm template release <chart> --namespace namespace --set k=v …} on the chart named
   * by the system property {@code kvorum.chart}.
   */
  static RenderedChart render(String release, String namespace, Map<String, String> values) {
    Path chart = Path.of(System.getProperty("kvorum.chart", "")).toAbsolutePath().normalize();
    if (!Files.isRegularFile(chart.resolve("Chart.yaml"))) {
      throw new IllegalStateException(chart + " (system property kvorum.chart) is no chart");
    }
    List<String> command = new ArrayList<>();
    command.add(helm().orElseThrow(() -> new IllegalStateException("no helm binary")).toString());
    command.addAll(List.of("template", release, chart.toString(), "--namespace", namespace));
    values.forEach((key, value) -> command.addAll(List.of("--set", key + "=" + value)));
    try {
      Path stderr = Files.createTempFile("helm-template", ".err");
      try {
        Process helm =
            new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        byte[] out = helm.getInputStream().readAllBytes();
        if (!helm.waitFor(60, TimeUnit.SECONDS) || helm.exitValue() != 0) {
          throw new IllegalStateException(
              String.join(" ", command) + " failed: " + Files.readString(stderr));
        }
        return new RenderedChart(namespace, parse(new String(out, StandardCharsets.UTF_8)));
      } finally {
        Files.deleteIfExists(stderr);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<JsonNode> parse(String yaml) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNext()) {
        JsonNode document = it.next();
        if (document != null && document.has("kind")) {
          documents.add(document);
        }
      }
    }
    return documents;
  }

  /** The one resource of {@code kind}; fails if there are none or several. */
  JsonNode only(String kind) {
    List<JsonNode> found = resources.stream().filter(r -> kind.equals(kindOf(r))).toList();
    if (found.size() != 1) {
      throw new IllegalStateException("expected one " + kind + ", the chart rendered " + found);
    }
    return found.get(0);
  }

  /** The Service that gives the pods their DNS names: the StatefulSet's {@code serviceName}. */
  JsonNode headlessService() {
    String name = statefulSet.path("spec").path("serviceName").asText();
    return resources.stream()
        .filter(r -> "Service".equals(kindOf(r)))
        .filter(r -> name.equals(r.path("metadata").path("name").asText()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no Service " + name));
  }

  String namespace() {
    return namespace;
  }

  /**
   * The DNS names of the client Service (the chart's Service that is not headless), longest first,
   * with the shorter forms a pod's search path resolves.
   */
  List<String> clientServiceDnsNames() {
    String name =
        resources.stream()
            .filter(r -> "Service".equals(kindOf(r)))
            .filter(r -> !"None".equals(r.path("spec").path("clusterIP").asText()))
            .map(r -> r.path("metadata").path("name").asText())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no client Service"));
    return List.of(
        name + "." + namespace + ".svc." + CLUSTER_DOMAIN,
        name + "." + namespace + ".svc",
        name + "." + namespace,
        name);
  }

  /** The pod of the chart's {@code helm test} hook ({@code helm.sh/hook: test}). */
  JsonNode testPod() {
    List<JsonNode> hooks =
        resources.stream()
            .filter(r -> "Pod".equals(kindOf(r)))
            .filter(
                r ->
                    "test"
                        .equals(
                            r.path("metadata").path("annotations").path("helm.sh/hook").asText()))
            .toList();
    if (hooks.size() != 1) {
      throw new IllegalStateException("expected one helm test pod, the chart rendered " + hooks);
    }
    return hooks.get(0);
  }

  int replicas() {
    return statefulSet.path("spec").path("replicas").asInt();
  }

  /** A StatefulSet's pods are named {@code <statefulset>-<ordinal>}. */
  String podName(int ordinal) {
    return statefulSet.path("metadata").path("name").asText() + "-" + ordinal;
  }

  /**
   * The DNS names Kubernetes gives pod {@code ordinal} ({@code <pod>.<service>.<namespace>.svc.
   * <domain>}), longest first, with the shorter forms a pod's search path resolves.
   */
  List<String> dnsNames(int ordinal) {
    String service = headlessService().path("metadata").path("name").asText();
    String pod = podName(ordinal) + "." + service;
    return List.of(
        pod + "." + namespace + ".svc." + CLUSTER_DOMAIN,
        pod + "." + namespace + ".svc",
        pod + "." + namespace,
        pod);
  }

  /** {@code spec.template.spec} of the StatefulSet. */
  JsonNode podSpec() {
    return statefulSet.path("spec").path("template").path("spec");
  }

  /** The node container (the chart's only container). */
  JsonNode container() {
    JsonNode containers = podSpec().path("containers");
    if (containers.size() != 1) {
      throw new IllegalStateException("expected one container, got " + containers);
    }
    return containers.get(0);
  }

  /** The claim template named {@code volume}, if the pods have a PersistentVolumeClaim by it. */
  Optional<JsonNode> claimTemplate(String volume) {
    for (JsonNode claim : statefulSet.path("spec").path("volumeClaimTemplates")) {
      if (volume.equals(claim.path("metadata").path("name").asText())) {
        return Optional.of(claim);
      }
    }
    return Optional.empty();
  }

  long terminationGracePeriodSeconds() {
    return podSpec().path("terminationGracePeriodSeconds").asLong(30);
  }

  /** A container port by name or number, as probes and Services refer to them. */
  int containerPort(JsonNode port) {
    return port.isInt() ? port.asInt() : containerPort(port.asText());
  }

  /** The container port by that name. */
  int containerPort(String name) {
    for (JsonNode declared : container().path("ports")) {
      if (name.equals(declared.path("name").asText())) {
        return declared.path("containerPort").asInt();
      }
    }
    throw new IllegalStateException("no container port " + name);
  }

  /** Bytes of a Kubernetes quantity such as {@code 768Mi} or {@code 1G}, rounded up. */
  static long bytes(String quantity) {
    return (long) Math.ceil(quantity(quantity));
  }

  /** The value of a Kubernetes quantity: {@code 768Mi}, {@code 1G}, {@code 500m} (CPUs), … */
  static double quantity(String quantity) {
    Matcher m = QUANTITY.matcher(quantity.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a quantity: " + quantity);
    }
    double factor =
        switch (m.group(2)) {
          case "" -> 1;
          case "m" -> 0.001;
          case "k" -> 1e3;
          case "M" -> 1e6;
          case "G" -> 1e9;
          case "T" -> 1e12;
          case "Ki" -> 1L << 10;
          case "Mi" -> 1L << 20;
          case "Gi" -> 1L << 30;
          case "Ti" -> 1L << 40;
          default -> throw new IllegalArgumentException("unknown unit in " + quantity);
        };
    return Double.parseDouble(m.group(1)) * factor;
  }

  private static String kindOf(JsonNode resource) {
    return resource.path("kind").asText();
  }
}
