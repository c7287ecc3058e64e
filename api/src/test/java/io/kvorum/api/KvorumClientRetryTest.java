package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's failover and retries against stand-in nodes whose answers each test scripts: what is
 * retried (idempotent calls after a 503 or a lost connection; a conditional write only when it
 * never left), how long it waits ({@code Retry-After}), its deadline, its typed errors, and the
 * members it learns from {@code /v0/cluster}.
 */
@Timeout(30)
class KvorumClientRetryTest {
  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final List<Long> arrivals = new CopyOnWriteArrayList<>();

  /** One scripted answer: status, headers (name, value, …) and body. */
  record Answer(int status, byte[] body, String... headers) {
    static Answer of(int status, String... headers) {
      return new Answer(status, new byte[0], headers);
    }
  }

  private HttpServer stub(String host, int port, Function<Integer, Answer> script)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    AtomicInteger count = new AtomicInteger();
    server.createContext(
        "/",
        exchange -> {
          arrivals.add(System.nanoTime());
          exchange.getRequestBody().readAllBytes();
          answer(exchange, script.apply(count.incrementAndGet()));
        });
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    servers.add(server);
    return server;
  }

  private static void answer(HttpExchange exchange, Answer answer) throws IOException {
    for (int i = 0; i + 1 < answer.headers().length; i += 2) {
      exchange.getResponseHeaders().add(answer.headers()[i], answer.headers()[i + 1]);
    }
    exchange.sendResponseHeaders(
        answer.status(), answer.body().length == 0 ? -1 : answer.body().length);
    exchange.getResponseBody().write(answer.body());
    exchange.close();
  }

  private static KvorumClientBuilder client(HttpServer... nodes) {
    KvorumClientBuilder builder = KvorumClient.builder().discovery(false);
    for (HttpServer node : nodes) {
      builder.seed("127.0.0.1", node.getAddress().getPort());
    }
    return builder;
  }

  @AfterEach
  void stop() {
    servers.forEach(server -> server.stop(0));
  }

  @Test
  void a503WithRetryAfterIsRetriedNoSoonerThanItAsks() throws Exception {
    HttpServer node =
        stub(
            "127.0.0.1",
            0,
            n -> n == 1 ? Answer.of(503, "Retry-After", "1") : Answer.of(201, "ETag", "\"7.0\""));
    try (KvorumClient kv = client(node).build()) {
      assertThat(kv.put("k", "v")).isEqualTo("\"7.0\"");
    }
    assertThat(arrivals).hasSize(2);
    assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0)))
        .isGreaterThanOrEqualTo(Duration.ofMillis(990));
  }

  @Test
  void aRetryAfterBeyondTheDeadlineEndsTheCallWithTheUnavailableAnswer() throws Exception {
    String problem =
        "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
            + "\"detail\":\"storage is saturated\"}";
    HttpServer node =
        stub("127.0.0.1", 0, n -> new Answer(503, problem.getBytes(UTF_8), "Retry-After", "60"));
    try (KvorumClient kv = client(node).deadline(Duration.ofSeconds(2)).build()) {
      assertThatThrownBy(() -> kv.get("k".getBytes(UTF_8)))
          .isInstanceOf(KvorumClientException.Unavailable.class)
          .hasMessageContaining("storage is saturated");
    }
    assertThat(arrivals).hasSize(1);
  }

  @Test
  void idempotentCallsFailOverToAnotherNodeAfter503() throws Exception {
    HttpServer busy = stub("127.0.0.1", 0, n -> Answer.of(503));
    HttpServer fine = stub("127.0.0.1", 0, n -> Answer.of(202, "ETag", "\"8.0\""));
    try (KvorumClient kv = client(busy, fine).build()) {
      for (int i = 0; i < 10; i++) {
        assertThat(kv.delete("k")).isEqualTo("\"8.0\"");
      }
    }
  }

  @Test
  void aConditionalWriteIsNeverSentAgainAfterAnAmbiguousAnswer() throws Exception {
    HttpServer busy = stub("127.0.0.1", 0, n -> Answer.of(503, "Retry-After", "0"));
    HttpServer fine = stub("127.0.0.1", 0, n -> Answer.of(201, "ETag", "\"9.0\""));
    try (KvorumClient kv = client(busy, fine).build()) {
      assertThatThrownBy(() -> kv.putIfMatch("k".getBytes(UTF_8), new byte[1], "\"1.0\""))
          .isInstanceOf(KvorumClientException.Unavailable.class);
    }
    assertThat(arrivals).hasSize(1);
  }

  @Test
  void aConditionalWriteRefusedAtConnectIsSentToAnotherNode() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    HttpServer fine = stub("127.0.0.1", 0, n -> Answer.of(201, "ETag", "\"9.0\""));
    try (KvorumClient kv =
        KvorumClient.builder()
            .discovery(false)
            .seed("127.0.0.1", closed)
            .seed("127.0.0.1", fine.getAddress().getPort())
            .build()) {
      ConditionalResult result = kv.putIfAbsent("k".getBytes(UTF_8), new byte[1]);
      assertThat(result.applied()).isTrue();
      assertThat(result.etag()).contains("\"9.0\"");
    }
  }

  @Test
  void aCallEndsAtItsDeadlineWhenNoNodeAnswers() throws Exception {
    HttpServer silent =
        stub(
            "127.0.0.1",
            0,
            n -> {
              try {
                Thread.sleep(10_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return Answer.of(200);
            });
    try (KvorumClient kv = client(silent).deadline(Duration.ofMillis(800)).build()) {
      assertThatThrownBy(() -> kv.get("k".getBytes(UTF_8)))
          .isInstanceOf(UncheckedIOException.class)
          .satisfies(Causes.timedOut());
    }
  }

  @Test
  void aNodeSlowerThanWhatIsLeftOfADeadlineStaysInTurn() throws Exception {
    AtomicInteger slowCalls = new AtomicInteger();
    HttpServer slow =
        stub(
            "127.0.0.1",
            0,
            n -> {
              slowCalls.set(n);
              try {
                Thread.sleep(400);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return Answer.of(404);
            });
    HttpServer fine = stub("127.0.0.1", 0, n -> Answer.of(404));
    // 200 ms per call, 3 s per attempt: the slow node's attempts are cut short by the deadline.
    try (KvorumClient kv =
        client(slow, fine).deadline(Duration.ofMillis(200)).maxAttempts(1).build()) {
      for (int call = 1; call <= 4; call++) {
        if (call % 2 == 1) {
          assertThatThrownBy(() -> kv.get("k".getBytes(UTF_8)))
              .as("call %d, to the slow node", call)
              .isInstanceOf(UncheckedIOException.class)
              .satisfies(Causes.timedOut());
        } else {
          assertThat(kv.get("k".getBytes(UTF_8))).as("call %d", call).isEmpty();
        }
      }
    }
    // Taken in turn: calls 1 and 3 went to the slow node. Marked down after its first timeout, it
    // would have had call 1 only, and call 3 would have gone to the other node.
    assertThat(slowCalls).hasValue(2);
  }

  @Test
  void problemDetailsBecomeTypedExceptions() throws Exception {
    HttpServer node =
        stub(
            "127.0.0.1",
            0,
            n -> {
              int status = new int[] {400, 401, 403, 504, 418}[(n - 1) % 5];
              String body =
                  "{\"type\":\"about:blank\",\"title\":\"T"
                      + status
                      + "\",\"status\":"
                      + status
                      + ",\"detail\":\"D"
                      + status
                      + "\"}";
              return new Answer(
                  status, body.getBytes(UTF_8), "Content-Type", KvorumApi.PROBLEM_JSON);
            });
    try (KvorumClient kv = client(node).build()) {
      List<Class<?>> kinds =
          List.of(
              KvorumClientException.InvalidRequest.class,
              KvorumClientException.Unauthorized.class,
              KvorumClientException.Forbidden.class,
              KvorumClientException.NotEnoughReplicas.class,
              KvorumClientException.class);
      int[] statuses = {400, 401, 403, 504, 418};
      for (int i = 0; i < kinds.size(); i++) {
        int status = statuses[i];
        assertThatThrownBy(() -> kv.put("k", "v"))
            .isInstanceOf(kinds.get(i))
            .satisfies(
                e -> {
                  KvorumClientException error = (KvorumClientException) e;
                  assertThat(error.status()).isEqualTo(status);
                  assertThat(error.title()).isEqualTo("T" + status);
                  assertThat(error.detail()).isEqualTo("D" + status);
                });
      }
    }
  }

  @Test
  void membersLearnedFromTheClusterViewTakeRequestsTheSeedRefuses() throws Exception {
    byte[] view =
        ("{\"nodes\":[{\"id\":\"a\",\"address\":\"127.0.0.1:9\"},"
                + "{\"id\":\"b\",\"address\":\"127.0.0.2:9\"}]}")
            .getBytes(UTF_8);
    HttpServer seed = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    seed.createContext(KvorumApi.PATH_CLUSTER, exchange -> answer(exchange, new Answer(200, view)));
    seed.createContext(KvorumApi.PATH_ENTITY, exchange -> answer(exchange, Answer.of(503)));
    seed.start();
    servers.add(seed);
    int port = seed.getAddress().getPort();
    // The other member serves HTTP at the same port on its own host, as the Helm chart runs them.
    stub("127.0.0.2", port, n -> Answer.of(201, "ETag", "\"5.0\""));
    try (KvorumClient kv = KvorumClient.builder().seed("127.0.0.1", port).build()) {
      kv.getAsync("warm".getBytes(UTF_8), Consistency.DEFAULT).exceptionally(e -> null).join();
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (kv.nodes().size() < 2 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(kv.nodes())
          .extracting(Object::toString)
          .containsExactly("http://127.0.0.1:" + port, "http://127.0.0.2:" + port);
      for (int i = 0; i < 5; i++) {
        assertThat(kv.put("k", "v")).isEqualTo("\"5.0\"");
      }
    }
  }
}
