package io.kvorum.node.cli.load;

import io.kvorum.api.KvorumClientException;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.time.Duration;

/**
 * Posts batches of records to one node's {@code /v0/load} and retries a batch the cluster could not
 * take whole: writing a record twice changes nothing, so the whole batch goes again. Answers that
 * will not change on a retry (a bad body, a missing token, a batch over the body limit) are not
 * retried. Thread-safe.
 */
final class BatchSender implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final NodeConnection node;
  private final int attempts;
  private final Duration firstBackoff;

  /**
   * @param node the node, each request sent once (retries are this class's)
   * @param attempts how many times a batch is sent before its failure is final
   * @param firstBackoff the wait before the first retry, doubled before each next one
   */
  BatchSender(NodeConnection node, int attempts, Duration firstBackoff) {
    this.node = node;
    this.attempts = attempts;
    this.firstBackoff = firstBackoff;
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

  private Outcome post(byte[] body) {
    try {
      node.ask(admin -> admin.load(body));
      return new Outcome(null, false);
    } catch (Unreachable e) {
      return new Outcome(e.getMessage(), true);
    } catch (KvorumClientException e) {
      int status = e.status();
      String described = node.baseUrl() + " answered " + NodeConnection.describe(e);
      if (status == 413) {
        described += " (a batch of " + body.length + " bytes: raise the nodes' --max-value-size)";
      }
      // 429 and 5xx (a quorum not reached in time, a node starting or overloaded) may pass.
      return new Outcome(described, status == 429 || status >= 500);
    }
  }

  @Override
  public void close() {
    node.close();
  }

  private record Outcome(String failure, boolean retryable) {}
}
