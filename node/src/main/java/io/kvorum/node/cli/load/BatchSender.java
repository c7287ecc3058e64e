package io.kvorum.node.cli.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.cli.admin.NodeAddress;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * Posts batches of records to one node's {@code /v0/load} and retries a batch the cluster could not
 * take whole: writing a record twice changes nothing, so the whole batch goes again. Answers that
 * will not change on a retry (a bad body, a missing token, a batch over the body limit) are not
 * retried. Thread-safe.
 */
final class BatchSender implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final String authorization;
  private final int attempts;
  private final Duration firstBackoff;
  private final HttpClient http;

  /**
   * @param tls the client TLS context for an https {@code baseUrl}, or null
   * @param authorization the {@code Authorization} header, or null
   * @param attempts how many times a batch is sent before its failure is final
   * @param firstBackoff the wait before the first retry, doubled before each next one
   */
  BatchSender(
      String baseUrl, SSLContext tls, String authorization, int attempts, Duration firstBackoff) {
    this.baseUrl = baseUrl;
    this.authorization = authorization;
    this.attempts = attempts;
    this.firstBackoff = firstBackoff;
    HttpClient.Builder client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(NodeAddress.TIMEOUT);
    if (tls != null) {
      client.sslContext(tls);
    }
    this.http = client.build();
  }

  /**
   * Sends {@code body} until the node takes it or the attempts run out.
   *
   * @return null once the node took every record, else why it did not (the last answer)
   */
  String send(byte[] body) throws InterruptedException {
    String failure = null;
    Duration backoff = firstBackoff;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        Thread.sleep(backoff.toMillis());
        backoff = backoff.multipliedBy(2);
      }
      Outcome outcome = post(body);
      if (outcome.failure == null) {
        return null;
      }
      failure = outcome.failure + (attempt > 1 ? " (after " + attempt + " attempts)" : "");
      if (!outcome.retryable) {
        return failure;
      }
    }
    return failure;
  }

  private Outcome post(byte[] body) throws InterruptedException {
    HttpRequest.Builder request;
    try {
      request =
          HttpRequest.newBuilder(URI.create(baseUrl + KvorumApi.PATH_LOAD))
              .timeout(TIMEOUT)
              .header("Content-Type", KvorumApi.RECORDS)
              .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    } catch (IllegalArgumentException e) {
      return new Outcome("not a valid address: " + baseUrl, false);
    }
    if (authorization != null) {
      request.header(KvorumApi.AUTHORIZATION, authorization);
    }
    HttpResponse<byte[]> answer;
    try {
      answer = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException | UnresolvedAddressException e) {
      return new Outcome(
          "cannot reach the node at " + baseUrl + ": " + NodeAddress.reason(e, TIMEOUT), true);
    }
    int status = answer.statusCode();
    if (status == 200) {
      return new Outcome(null, false);
    }
    String described = baseUrl + " answered " + NodeAddress.describe(status, json(answer.body()));
    if (status == 413) {
      described += " (a batch of " + body.length + " bytes: raise the nodes' --max-value-size)";
    }
    // 429 and 5xx (a quorum not reached in time, a node starting or overloaded) may pass.
    return new Outcome(described, status == 429 || status >= 500);
  }

  private static JsonNode json(byte[] body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    http.close();
  }

  private record Outcome(String failure, boolean retryable) {}
}
