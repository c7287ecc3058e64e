package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.bool;
import static io.kvorum.node.config.FlagValues.duration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The flags of "Security (TLS)" in docs/configuration.md: certificates, HTTPS, reloading. */
final class TlsOptions {
  @Option(
      names = "--tls-cert",
      defaultValue = "${env:KVORUM_TLS_CERT}",
      paramLabel = "FILE",
      description =
          "PEM certificate (chain) this node presents. With --tls-key and --tls-ca, inter-node"
              + " traffic is mutual TLS. Default: none, plaintext.")
  String tlsCert;

  @Option(
      names = "--tls-key",
      defaultValue = "${env:KVORUM_TLS_KEY}",
      paramLabel = "FILE",
      description = "PEM (PKCS#8) private key of --tls-cert.")
  String tlsKey;

  @Option(
      names = "--tls-ca",
      defaultValue = "${env:KVORUM_TLS_CA}",
      paramLabel = "FILE",
      description =
          "PEM certificate(s) of the CA that signs every node's certificate; a peer is accepted"
              + " only with a certificate it signed.")
  String tlsCa;

  @Option(
      names = "--http-tls",
      defaultValue = "${env:KVORUM_HTTP_TLS:-false}",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description =
          "Serve the client API over TLS (HTTPS) with the --tls-cert certificate."
              + " Default: ${DEFAULT-VALUE}.")
  String httpTls;

  @Option(
      names = "--tls-reload-interval",
      defaultValue = "${env:KVORUM_TLS_RELOAD_INTERVAL:-1m}",
      paramLabel = "DURATION",
      description =
          "How often the TLS files are checked for changes (renewed certificates are taken"
              + " without a restart). Default: ${DEFAULT-VALUE}.")
  String tlsReloadInterval;

  /** All three TLS files or none; {@code --http-tls} needs them. */
  Optional<NodeConfig.Tls> tls() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("--tls-cert", tlsCert);
    files.put("--tls-key", tlsKey);
    files.put("--tls-ca", tlsCa);
    List<String> given = files.keySet().stream().filter(f -> !blank(files.get(f))).toList();
    boolean http = bool("--http-tls", httpTls);
    Duration reload = duration("--tls-reload-interval", tlsReloadInterval);
    if (given.isEmpty()) {
      if (http) {
        throw new ConfigException(
            "--http-tls", httpTls, "needs --tls-cert, --tls-key and --tls-ca (the certificate)");
      }
      return Optional.empty();
    }
    if (given.size() < files.size()) {
      String first = given.get(0);
      List<String> missing = files.keySet().stream().filter(f -> !given.contains(f)).toList();
      throw new ConfigException(
          first,
          files.get(first),
          "TLS needs all three of --tls-cert, --tls-key and --tls-ca; "
              + String.join(" and ", missing)
              + (missing.size() == 1 ? " is" : " are")
              + " missing");
    }
    return Optional.of(
        new NodeConfig.Tls(
            Path.of(tlsCert.trim()), Path.of(tlsKey.trim()), Path.of(tlsCa.trim()), http, reload));
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}
