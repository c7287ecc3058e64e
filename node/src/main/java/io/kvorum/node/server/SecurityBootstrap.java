package io.kvorum.node.server;

import io.kvorum.node.auth.TokensFile;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.tls.TlsEngine;
import io.kvorum.node.tls.TlsFileException;
import io.kvorum.node.tls.TlsMaterial;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Loads what secures a node: the TLS files of its two edges, and the bearer tokens of its clients.
 * Each file that cannot be used ends the start as invalid configuration, naming its flag and the
 * file.
 */
public final class SecurityBootstrap {
  private SecurityBootstrap() {}

  /**
   * Reads and checks the TLS files and the tokens file, if configured; the TLS material is closed
   * (its reloading stopped) with {@code resources}. The tokens are re-read by a periodic task.
   *
   * @throws ConfigException if a file cannot be used, or the TLS engine property is wrong
   */
  public static NodeSecurity load(NodeConfig config, NodeResources resources) {
    return new NodeSecurity(tls(config, resources), clientTokens(config));
  }

  private static Optional<TlsMaterial> tls(NodeConfig config, NodeResources resources) {
    if (config.tls().isEmpty()) {
      return Optional.empty();
    }
    NodeConfig.Tls settings = config.tls().get();
    TlsEngine engine;
    try {
      engine = TlsEngine.fromSystemProperties();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "-D" + TlsEngine.PROPERTY, System.getProperty(TlsEngine.PROPERTY), e.getMessage());
    }
    try {
      TlsMaterial material =
          resources.closeOnStop(
              TlsMaterial.load(
                  new TlsMaterial.Files(
                      settings.certificate(), settings.privateKey(), settings.trustedCa()),
                  settings.reloadInterval(),
                  engine,
                  resources.ownThread("kvorum-tls-reload")));
      bindCertificateExpiry(material, resources.registry());
      return Optional.of(material);
    } catch (TlsFileException e) {
      String flag =
          switch (e.role()) {
            case CERTIFICATE -> "--tls-cert";
            case PRIVATE_KEY -> "--tls-key";
            case TRUSTED_CA -> "--tls-ca";
          };
      throw new ConfigException(flag, e.file().toString(), e.reason());
    }
  }

  /**
   * Exports when the certificate the node presents expires ({@code
   * kvorum_tls_certificate_expiry_timestamp_seconds}, following renewals): what the alert on a
   * certificate about to expire watches.
   */
  static void bindCertificateExpiry(TlsMaterial material, MeterRegistry registry) {
    Gauge.builder(
            "kvorum.tls.certificate.expiry.timestamp",
            material,
            m -> m.certificate().getNotAfter().getTime() / 1e3)
        .description("when the certificate this node presents expires, Unix seconds")
        .baseUnit("seconds")
        .register(registry);
  }

  private static Optional<TokensFile> clientTokens(NodeConfig config) {
    Path file = config.authTokens();
    if (file == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(TokensFile.load(file));
    } catch (UncheckedIOException | IllegalArgumentException e) {
      throw new ConfigException("--auth-tokens", file.toString(), e.getMessage());
    }
  }
}
