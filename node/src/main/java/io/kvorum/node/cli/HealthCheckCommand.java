package io.kvorum.node.cli;

import io.kvorum.api.ClientTls;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.config.NodeOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import javax.net.ssl.HttpsURLConnection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node healthcheck}: asks a node on this machine whether it is ready ({@code GET
 * /health/ready} on the loopback), over HTTPS when the node serves its client port so, trusting the
 * node's CA: the container image's {@code HEALTHCHECK}. It takes the node's own configuration: its
 * flags as the node was started ({@code --pid}, from {@code /proc/PID/cmdline}; the image's node is
 * PID 1) or given here, and their environment twins. The certificate is checked against the CA but
 * not against the host name: it names the node's service, not the loopback this command dials, and
 * the only server on the loopback port is the node itself.
 */
@Command(
    name = "healthcheck",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Exits 0 if the node on this machine is ready (the container's health check).",
    footer = {
      "",
      "Example, in the container (the node is PID 1):  kvorum-node healthcheck --pid 1",
      "",
      "Exit codes: 0 ready, 1 not ready or not reachable, 2 invalid configuration."
    })
public final class HealthCheckCommand implements Callable<Integer> {
  private static final int TIMEOUT_MILLIS = 2_000;

  @Spec CommandSpec spec;

  @Option(
      names = "--pid",
      paramLabel = "PID",
      description =
          "Take the node's flags from this process's command line (the node's own, e.g. 1 in its"
              + " container) instead of from this command's.")
  Long pid;

  @Mixin NodeOptions options = new NodeOptions();

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    NodeConfig config;
    try {
      config = (pid == null ? options : optionsOf(pid)).toConfig();
    } catch (ConfigException e) {
      err.println("kvorum-node healthcheck: " + e.getMessage());
      return ExitCodes.CONFIG;
    } catch (IOException | CommandLine.ParameterException e) {
      err.println("kvorum-node healthcheck: cannot read the flags of process " + pid + ": " + e);
      return ExitCodes.CONFIG;
    }
    Optional<NodeConfig.Tls> https = config.tls().filter(NodeConfig.Tls::http);
    URI ready =
        URI.create(
            (https.isPresent() ? "https" : "http")
                + "://"
                + loopback(config.http().host())
                + ":"
                + config.http().port()
                + KvorumApi.PATH_READY);
    try {
      HttpURLConnection connection = (HttpURLConnection) ready.toURL().openConnection();
      if (connection instanceof HttpsURLConnection secure) {
        secure.setSSLSocketFactory(
            ClientTls.trustingPem(https.orElseThrow().trustedCa()).getSocketFactory());
        secure.setHostnameVerifier((host, session) -> true);
      }
      connection.setConnectTimeout(TIMEOUT_MILLIS);
      connection.setReadTimeout(TIMEOUT_MILLIS);
      int status = connection.getResponseCode();
      InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      String text = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
      connection.disconnect();
      if (status == 200) {
        spec.commandLine().getOut().println(ready + ": " + text);
        return ExitCodes.OK;
      }
      err.println("kvorum-node healthcheck: " + ready + " answered " + status + ": " + text);
      return ExitCodes.FAILURE;
    } catch (IOException | RuntimeException e) {
      err.println("kvorum-node healthcheck: " + ready + ": " + e);
      return ExitCodes.FAILURE;
    }
  }

  /** The address that reaches a listener bound to {@code host}: the loopback for a wildcard. */
  private static String loopback(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.isBlank()
        ? "127.0.0.1"
        : host.contains(":") ? "[" + host + "]" : host;
  }

  /** The node flags of process {@code pid}: the arguments after its jar or main class. */
  private static NodeOptions optionsOf(long pid) throws IOException {
    byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
    List<String> words =
        new ArrayList<>(Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0")));
    int jar = words.indexOf("-jar");
    int main = words.indexOf(KvorumNode.class.getName());
    int from = jar >= 0 ? jar + 2 : main >= 0 ? main + 1 : words.size();
    if (from > words.size()) {
      throw new IOException("process " + pid + " is not a kvorum node: " + words);
    }
    HealthCheckCommand parsed = new HealthCheckCommand();
    new CommandLine(parsed).parseArgs(words.subList(from, words.size()).toArray(String[]::new));
    return parsed.options;
  }
}
