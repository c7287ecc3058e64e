package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.ClientTls;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
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
 * environment variable keeps it out of the process list).
 */
public final class NodeAddress {
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

  /** {@code --token} (or {@code KVORUM_TOKEN}), stripped; null without one. */
  public String token() {
    return token == null || token.isBlank() ? null : token.strip();
  }

  /** The {@code Authorization} header for {@code --token}, or null without one. */
  public String authorization() {
    return bearer(token());
  }

  /** The {@code Authorization} header that sends {@code token}, or null for none. */
  public static String bearer(String token) {
    return token == null ? null : "Bearer " + token;
  }

  /** The scheme the nodes speak: {@code https} with {@code --tls-ca}. */
  String scheme() {
    return tlsCa == null ? "http" : "https";
  }

  /** The node's base URL, for messages. */
  public String baseUrl() {
    String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return scheme() + "://" + literal + ":" + port;
  }

  /**
   * A client of the node (and, on failure, nowhere else: the operator named this node) with this
   * TLS and token.
   *
   * @throws IllegalArgumentException when the CA file cannot be read or the token is blank
   */
  KvorumClient client(Duration deadline) {
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
   * Sends {@code method} to {@code path} with an empty body and returns the answer.
   *
   * @throws Unreachable with one line saying why, when no answer came
   */
  HttpResponse<byte[]> send(String method, String path) throws InterruptedException {
    return send(baseUrl(), method, path, TIMEOUT);
  }

  /**
   * The client TLS context for {@code --tls-ca}, or null for plain HTTP.
   *
   * @throws Unreachable when the file is not a readable PEM CA file
   */
  public SSLContext tls() {
    if (tlsCa == null) {
      return null;
    }
    try {
      return ClientTls.trustingPem(tlsCa);
    } catch (UncheckedIOException | IllegalArgumentException e) {
      throw new Unreachable("--tls-ca '" + tlsCa + "': " + e.getMessage());
    }
  }

  /**
   * Sends {@code method} to {@code path} of the node at {@code baseUrl}, waiting up to {@code
   * timeout} for the answer.
   *
   * @throws Unreachable with one line saying why, when no answer came
   */
  HttpResponse<byte[]> send(String baseUrl, String method, String path, Duration timeout)
      throws InterruptedException {
    URI uri;
    try {
      uri = URI.create(baseUrl + path);
    } catch (IllegalArgumentException e) {
      throw new Unreachable("not a valid address: " + baseUrl);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (authorization() != null) {
      request.header(KvorumApi.AUTHORIZATION, authorization());
    }
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(TIMEOUT);
    SSLContext tls = tls();
    if (tls != null) {
      client.sslContext(tls);
    }
    try (HttpClient http = client.build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException | UnresolvedAddressException e) {
      throw new Unreachable("cannot reach the node at " + baseUrl + ": " + reason(e, timeout));
    }
  }

  /**
   * An answer the command did not expect, in a few words: the status and, from a problem+json body,
   * its title and detail.
   */
  public static String describe(int status, JsonNode body) {
    StringBuilder text = new StringBuilder().append(status);
    if (body != null && body.hasNonNull("title")) {
      text.append(' ').append(body.path("title").asText());
    }
    if (body != null && body.hasNonNull("detail")) {
      text.append(": ").append(body.path("detail").asText());
    }
    return text.toString();
  }

  /** Why no answer came from a node, in a few words. */
  public static String reason(Exception e, Duration timeout) {
    if (e instanceof HttpTimeoutException) {
      return "no answer within " + timeout.toSeconds() + " s";
    }
    if (inChain(e, UnresolvedAddressException.class) || inChain(e, UnknownHostException.class)) {
      return "unknown host";
    }
    if (inChain(e, ConnectException.class)) {
      return "connection refused (is the node running? --host and --port name another)";
    }
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null) {
        return cause.getMessage();
      }
    }
    return e.getClass().getSimpleName();
  }

  private static boolean inChain(Throwable e, Class<? extends Throwable> kind) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (kind.isInstance(cause)) {
        return true;
      }
    }
    return false;
  }

  /** No answer from the node, or no way to ask; the message is one line for the operator. */
  public static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message, null, false, false);
    }
  }
}
