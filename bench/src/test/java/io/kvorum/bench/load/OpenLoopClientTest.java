package io.kvorum.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenLoopClientTest {
  private static final Request GET =
      new Request(
          "get", "GET / HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 204);
  private final List<HttpServer> servers = new ArrayList<>();

  private OpenLoopClient serve(long delayMillis, int status) throws IOException {
    return new OpenLoopClient(List.of(server(delayMillis, status, new AtomicLong())));
  }

  private InetSocketAddress server(long delayMillis, int status, AtomicLong count)
      throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4, Thread.ofPlatform().daemon().factory()));
    server.createContext(
        "/",
        exchange -> {
          count.incrementAndGet();
          try {
            Thread.sleep(delayMillis);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.start();
    servers.add(server);
    return server.getAddress();
  }

  @AfterEach
  void stop() {
    servers.forEach(server -> server.stop(0));
  }

  @Test
  void sendsTheRateAskedForAndCountsEveryAnswer() throws IOException {
    try (OpenLoopClient client = serve(0, 204)) {
      PhaseResult result =
          client.runAtRate("t", seq -> GET, 200, Duration.ofSeconds(1), 4, Duration.ofSeconds(2));

      assertThat(result.sent()).isEqualTo(200);
      assertThat(result.succeeded()).isEqualTo(200);
      assertThat(result.errors()).isEmpty();
      assertThat(result.latency().getTotalCount()).isEqualTo(200);
    }
  }

  @Test
  void theLoadIsSpreadEvenlyOverTheTargetsEvenWhenOneIsSlower() throws IOException {
    AtomicLong fast = new AtomicLong();
    AtomicLong slow = new AtomicLong();
    try (OpenLoopClient client =
        new OpenLoopClient(List.of(server(0, 204, fast), server(20, 204, slow)))) {
      PhaseResult result =
          client.runAtRate("t", seq -> GET, 200, Duration.ofSeconds(1), 8, Duration.ofSeconds(3));

      assertThat(result.succeeded()).isEqualTo(200);
      assertThat(fast.get()).isEqualTo(100);
      assertThat(slow.get()).isEqualTo(100);
    }
  }

  @Test
  void aClosedLoopForAWhileStopsSendingWhenTheWhileIsOverWithoutErrors() throws IOException {
    try (OpenLoopClient client = serve(5, 204)) {
      PhaseResult result =
          client.runClosedFor("t", seq -> GET, 2, Duration.ofMillis(500), Duration.ofSeconds(2));

      assertThat(result.errors()).isEmpty();
      assertThat(result.requestedRate()).isZero();
      assertThat(result.answered()).isEqualTo(result.sent()).isBetween(20L, 300L);
      assertThat(result.sendWindow()).isBetween(Duration.ofMillis(500), Duration.ofMillis(1500));
    }
  }

  @Test
  void aStalledServerIsChargedFromEachRequestsDueTimeNotFromItsSend() throws IOException {
    // One connection, 100 ms per answer, 10 requests due over 0.45 s: the last one can only start
    // after the nine before it, about 1 s after the start, and is charged ~0.55 s, not 0.1 s.
    try (OpenLoopClient client = serve(100, 204)) {
      PhaseResult result =
          client.runAtRate("t", seq -> GET, 20, Duration.ofMillis(500), 1, Duration.ofSeconds(5));

      assertThat(result.succeeded()).isEqualTo(10);
      assertThat(result.latency().getMaxValue()).isGreaterThan(500_000);
      assertThat(result.latency().getMinValue()).isGreaterThanOrEqualTo(90_000);
    }
  }

  @Test
  void anUnexpectedStatusIsAnError() throws IOException {
    try (OpenLoopClient client = serve(0, 503)) {
      PhaseResult result =
          client.runAtRate("t", seq -> GET, 50, Duration.ofMillis(200), 2, Duration.ofSeconds(2));

      assertThat(result.succeeded()).isZero();
      assertThat(result.errors()).containsEntry("status 503", 10L);
    }
  }

  @Test
  void answersThatNeverComeAreTimeouts() throws IOException {
    try (OpenLoopClient client = serve(3_000, 204)) {
      PhaseResult result =
          client.runAtRate("t", seq -> GET, 10, Duration.ofMillis(300), 2, Duration.ofMillis(300));

      assertThat(result.succeeded()).isZero();
      assertThat(result.errorCount()).isEqualTo(3);
      assertThat(result.errors()).containsKey("timeout");
    }
  }

  @Test
  void aSourceThatObservesAnswersBuildsEachRequestForItsConnectionAndGetsItsAnswerBack()
      throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4, Thread.ofPlatform().daemon().factory()));
    server.createContext(
        "/",
        exchange -> {
          // Echoes the connection the request says it came from, as ETag and as body.
          String from = exchange.getRequestURI().getQuery();
          byte[] body = ("{\"from\":\"" + from + "\"}").getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("ETag", "\"" + from + "\"");
          exchange.sendResponseHeaders(412, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    servers.add(server);
    List<String> mismatches = new ArrayList<>();
    AtomicLong observed = new AtomicLong();
    RequestSource echo =
        new RequestSource() {
          @Override
          public Request next(long sequence) {
            throw new AssertionError("the connection's variant is called");
          }

          @Override
          public Request next(long sequence, int connection) {
            String line = "GET /?c" + connection + " HTTP/1.1\r\nHost: test\r\n\r\n";
            return new Request("get", line.getBytes(StandardCharsets.US_ASCII), 412);
          }

          @Override
          public boolean observesAnswers() {
            return true;
          }

          @Override
          public void answered(int connection, Answer answer) {
            observed.incrementAndGet();
            if (answer.status() != 412
                || !("\"c" + connection + "\"").equals(answer.etag())
                || !answer.body().equals("{\"from\":\"c" + connection + "\"}")) {
              mismatches.add(connection + ": " + answer);
            }
          }
        };
    try (OpenLoopClient client = new OpenLoopClient(List.of(server.getAddress()))) {
      PhaseResult result =
          client.runAtRate("t", echo, 200, Duration.ofMillis(500), 4, Duration.ofSeconds(2));

      assertThat(result.succeeded()).isEqualTo(100);
      assertThat(observed.get()).isEqualTo(100);
      assertThat(mismatches).isEmpty();
    }
  }
}
