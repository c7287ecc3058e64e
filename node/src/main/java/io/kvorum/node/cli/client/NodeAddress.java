package io.kvorum.node.cli.client;

import io.kvorum.api.ClientTls;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientBuilder;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * The node an operator's or a user's sub-command ({@code status}, {@code load}, {@code get}, …)
 * talks to, and how: its HTTP API on {@code --host} and {@code --port}, over TLS trusting {@code
 * --tls-ca}, with {@code --token}. The port defaults to {@code KVORUM_HTTP_PORT}, so that the
 * command run inside a node's container ({@code kubectl exec}) finds that node whatever port it was
 * given; the CA and the token to {@code KVORUM_CLIENT_TLS_CA} and {@code KVORUM_TOKEN} (the token's
 * environment variable keeps it out of the process list). Every command reaches its nodes through
 * the {@link KvorumClient} built here.
 */
public final class NodeAddress {
  /** How long an operator's request may take, unless the command says otherwise. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Option(
      names = "--host",
      defaultValue = "localhost",
      paramLabel = "HOST",
      description = "Host of the node's HTTP API. Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(
      names = "--port",
      defaultValue = "${env:KVORUM_HTTP_PORT:-8080}",
      paramLabel = "PORT",
      description = "Its HTTP port. Default: KVORUM_HTTP_PORT if set, else 8080.")
  int port;

  @Option(
      names = "--tls-ca",
      defaultValue = "${env:KVORUM_CLIENT_TLS_CA}",
      paramLabel = "FILE",
      description =
          "Speak HTTPS (nodes run with --http-tls) and trust the nodes' certificates signed by"
              + " this PEM CA file. Default: KVORUM_CLIENT_TLS_CA if set, else plain HTTP.")
  Path tlsCa;

  @Option(
      names = "--token",
      defaultValue = "${env:KVORUM_TOKEN}",
      paramLabel = "TOKEN",
      description =
          "Send Authorization: Bearer TOKEN (nodes run with --auth-tokens). Default: KVORUM_TOKEN"
              + " if set.")
  String token;

  /** {@code --host}. */
  public String host() {
    return host;
  }

  /** {@code --tls-ca}; null for plain HTTP. */
  public Path tlsCa() {
    return tlsCa;
  }

  /** {@code --port}. */
  public int port() {
    return port;
  }

  /** {@code --token} (or {@code KVORUM_TOKEN}), stripped; null without one. */
  public String token() {
    return token == null || token.isBlank() ? null : token.strip();
  }

  /** The scheme the nodes speak: {@code https} with {@code --tls-ca}. */
  public String scheme() {
    return tlsCa == null ? "http" : "https";
  }

  /** The node's base URL, for messages. */
  public String baseUrl() {
    String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return scheme() + "://" + literal + ":" + port;
  }

  /**
   * A client of the node that retries within {@code deadline} (and, on failure, asks nowhere else:
   * the user named this node), for the data commands.
   *
   * @throws IllegalArgumentException when the CA file is no PEM file or the token is blank
   * @throws UncheckedIOException when the CA file cannot be read
   */
  public KvorumClient client(Duration deadline) {
    KvorumClientBuilder builder =
        KvorumClient.builder()
            .seed(host, port)
            .discovery(false)
            .deadline(deadline)
            .attemptTimeout(deadline);
    if (tlsCa != null) {
      builder.tlsCa(tlsCa);
    }
    if (token != null) {
      builder.token(token);
    }
    return builder.build();
  }

  /**
   * The node at {@code --host} and {@code --port}, asked once a request (as {@link
   * KvorumClient#connect} does), each within {@code timeout}.
   *
   * @throws Unreachable when {@code --tls-ca} is not a readable PEM CA file
   */
  public NodeConnection connect(Duration timeout) {
    return connect(baseUrl(), token(), timeout);
  }

  /**
   * Another member at {@code baseUrl} ({@code scheme://host:port}), with this TLS and token.
   *
   * @throws Unreachable when {@code baseUrl} is no address, or {@code --tls-ca} not a CA file
   */
  public NodeConnection connect(String baseUrl, Duration timeout) {
    return connect(baseUrl, token(), timeout);
  }

  /** As {@link #connect(String, Duration)}, sending {@code token} (null: none) instead. */
  public NodeConnection connect(String baseUrl, String token, Duration timeout) {
    URI uri;
    KvorumClientBuilder builder;
    try {
      uri = URI.create(baseUrl);
      int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
      builder =
          KvorumClient.builder()
              .seed(uri.getHost(), port)
              .discovery(false)
              .maxAttempts(1)
              .deadline(timeout)
              .attemptTimeout(timeout);
    } catch (IllegalArgumentException e) {
      throw new Unreachable("not a valid address: " + baseUrl);
    }
    SSLContext tls = tls();
    if (tls != null) {
      builder.tls(tls);
    }
    if (token != null) {
      builder.token(token);
    }
    return new NodeConnection(builder.build(), baseUrl, timeout);
  }

  /**
   * The client TLS context for {@code --tls-ca}, or null for plain HTTP.
   *
   * @throws Unreachable when the file is not a readable PEM CA file
   */
  private SSLContext tls() {
    if (tlsCa == null) {
      return null;
    }
    try {
      return ClientTls.trustingPem(tlsCa);
    } catch (UncheckedIOException | IllegalArgumentException e) {
      throw new Unreachable("--tls-ca '" + tlsCa + "': " + e.getMessage());
    }
  }
}
