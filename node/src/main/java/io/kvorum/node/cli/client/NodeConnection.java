package io.kvorum.node.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * One node as an operator's command asks it: a {@link KvorumClient} of that node alone, each
 * request sent once within the timeout, and the words for what went wrong. No answer becomes an
 * {@link Unreachable} that says why in a few words; an answer the command did not want stays the
 * client's {@link KvorumClientException}, which {@link #describe} words.
 */
public final class NodeConnection implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KvorumClient client;
  private final String baseUrl;
  private final Duration timeout;

  NodeConnection(KvorumClient client, String baseUrl, Duration timeout) {
    this.client = client;
    this.baseUrl = baseUrl;
    this.timeout = timeout;
  }

  /** The node's base URL, for messages. */
  public String baseUrl() {
    return baseUrl;
  }

  /**
   * The answer to {@code request} of the node's operator endpoints.
   *
   * @throws Unreachable with one line saying why, when no answer came
   * @throws KvorumClientException when the node answered otherwise than the endpoint promises
   */
  public <T> T ask(Function<KvorumAdmin, T> request) {
    try {
      return request.apply(client.admin());
    } catch (UncheckedIOException e) {
      throw new Unreachable("cannot reach the node at " + baseUrl + ": " + reason(e, timeout));
    }
  }

  /** The node's cluster view ({@code GET /v0/cluster}) as a tree; as {@link #ask}. */
  public JsonNode cluster() {
    return tree(ask(KvorumAdmin::cluster).json());
  }

  /** {@code document} (maps, lists, strings, numbers, booleans, nulls) as a tree. */
  private static JsonNode tree(Map<String, Object> document) {
    return JSON.valueToTree(document);
  }

  /**
   * An answer the command did not expect, in a few words: the status and, from a problem+json body,
   * its title and detail.
   */
  public static String describe(KvorumClientException answer) {
    return describe(answer.status(), problem(answer));
  }

  private static String describe(int status, JsonNode body) {
    StringBuilder text = new StringBuilder().append(status);
    if (body != null && body.hasNonNull("title")) {
      text.append(' ').append(body.path("title").asText());
    }
    if (body != null && body.hasNonNull("detail")) {
      text.append(": ").append(body.path("detail").asText());
    }
    return text.toString();
  }

  /** The body of {@code answer} as JSON, or null when it has none or it is not JSON. */
  public static JsonNode problem(KvorumClientException answer) {
    if (answer.body() == null) {
      return null;
    }
    try {
      return JSON.readTree(answer.body().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      return null;
    }
  }

  /** Why no answer came from a node, in a few words. */
  private static String reason(UncheckedIOException e, Duration timeout) {
    // The client's own message names the request and every node asked: the cause says why.
    Throwable why = e.getCause() == null ? e : e.getCause();
    if (inChain(why, HttpTimeoutException.class)) {
      return "no answer within " + timeout.toSeconds() + " s";
    }
    if (inChain(why, UnresolvedAddressException.class)
        || inChain(why, UnknownHostException.class)) {
      return "unknown host";
    }
    if (inChain(why, ConnectException.class)) {
      return "connection refused (is the node running? --host and --port name another)";
    }
    for (Throwable cause = why; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null) {
        return cause.getMessage();
      }
    }
    return why.getClass().getSimpleName();
  }

  private static boolean inChain(Throwable e, Class<? extends Throwable> kind) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (kind.isInstance(cause)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    client.close();
  }
}
