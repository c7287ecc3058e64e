package io.kvorum.node.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.ClientTls;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node node-zone}: writes the zone of the Kubernetes node a pod runs on (a label of
 * that node, {@code topology.kubernetes.io/zone} by default) to a file, for the node's {@code
 * --zone}. A pod cannot read its node's labels through the downward API; the chart runs this in an
 * init container with the pod's service account, which may only {@code get} nodes, as Strimzi's
 * init container finds a Kafka broker's rack. It asks the API server the pod's environment names
 * ({@code KUBERNETES_SERVICE_HOST}, {@code _PORT}) over TLS verified against the service account's
 * CA. A node without the label gets an empty file: no zone.
 */
@Command(
    name = "node-zone",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Writes the zone label of the Kubernetes node this pod runs on to a file.",
    footer = {"", "Exit codes: 0 written, 1 the API server refused or could not be reached."})
public final class NodeZoneCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  @Spec CommandSpec spec;

  @Option(
      names = "--node",
      defaultValue = "${env:KVORUM_K8S_NODE_NAME}",
      required = true,
      description = "The Kubernetes node (the pod's spec.nodeName).")
  String node;

  @Option(
      names = "--label",
      defaultValue = "topology.kubernetes.io/zone",
      description = "The node label that names its zone. Default: ${DEFAULT-VALUE}.")
  String label;

  @Option(names = "--out", required = true, description = "The file to write the zone to.")
  Path out;

  @Option(
      names = "--api-server",
      description = "The API server's URL. Default: https://$KUBERNETES_SERVICE_HOST:$..._PORT.")
  String apiServer;

  @Option(
      names = "--service-account",
      description = "Where the token and ca.crt are. Default: ${DEFAULT-VALUE}.")
  Path account = ACCOUNT;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    try {
      String zone = zoneOf(nodeObject());
      Files.writeString(out, zone);
      spec.commandLine()
          .getOut()
          .println("node " + node + " is in zone '" + zone + "' (label " + label + ")");
      return ExitCodes.OK;
    } catch (IOException | RuntimeException e) {
      err.println("kvorum-node node-zone: cannot read node " + node + ": " + e.getMessage());
      return ExitCodes.FAILURE;
    }
  }

  private JsonNode nodeObject() throws IOException, InterruptedException {
    String base = apiServer;
    if (base == null) {
      String host = System.getenv("KUBERNETES_SERVICE_HOST");
      String port = System.getenv("KUBERNETES_SERVICE_PORT");
      if (host == null || port == null) {
        throw new IOException(
            "not in a pod: KUBERNETES_SERVICE_HOST is not set; give --api-server");
      }
      base = "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
    Path ca = account.resolve("ca.crt");
    if (base.startsWith("https:") && Files.exists(ca)) {
      client.sslContext(ClientTls.trustingPem(ca));
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create(
                    base + "/api/v1/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8)))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", "application/json");
    Path token = account.resolve("token");
    if (Files.exists(token)) {
      request.header("Authorization", "Bearer " + Files.readString(token).trim());
    }
    HttpResponse<byte[]> answer =
        client.build().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (answer.statusCode() != 200) {
      throw new IOException(
          "the API server answered "
              + answer.statusCode()
              + " (does the pod's service account may get nodes?)");
    }
    return JSON.readTree(answer.body());
  }

  private String zoneOf(JsonNode object) {
    return object.path("metadata").path("labels").path(label).asText("");
  }
}
