package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The node an operator's sub-command ({@code status}, {@code decommission}, {@code load}) talks to:
 * its HTTP API on {@code --host} and {@code --port}. The port defaults to {@code KVORUM_HTTP_PORT},
 * so that the command run inside a node's container ({@code kubectl exec}) finds that node whatever
 * port it was given.
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

  /** The node's base URL, for messages. */
  public String baseUrl() {
    String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "http://" + literal + ":" + port;
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
   * Sends {@code method} to {@code path} of the node at {@code baseUrl}, waiting up to {@code
   * timeout} for the answer.
   *
   * @throws Unreachable with one line saying why, when no answer came
   */
  static HttpResponse<byte[]> send(String baseUrl, String method, String path, Duration timeout)
      throws InterruptedException {
    URI uri;
    try {
      uri = URI.create(baseUrl + path);
    } catch (IllegalArgumentException e) {
      throw new Unreachable("not a valid address: " + baseUrl);
    }
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
      return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
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

  /** No answer from the node; the message is one line for the operator. */
  static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message, null, false, false);
    }
  }
}
