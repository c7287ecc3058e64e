package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's side of SPEC §10 (ETags, conditional writes, the compare-and-set loop) against a
 * one-key register that answers as the contract says: a stand-in server, so that the client's
 * parsing and retries are checked apart from the cluster.
 */
@Timeout(30)
class KvorumClientConditionalTest {
  private static final byte[] KEY = "counter".getBytes(UTF_8);
  private HttpServer server;
  private KvorumClient client;
  private byte[] value;
  private long version;
  private final List<String> queries = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(KvorumApi.PATH_ENTITY, this::serve);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    client = KvorumClient.connect("127.0.0.1", server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private synchronized void serve(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    queries.add(exchange.getRequestURI().getRawQuery());
    String ifMatch = exchange.getRequestHeaders().getFirst(KvorumApi.IF_MATCH);
    String ifNoneMatch = exchange.getRequestHeaders().getFirst(KvorumApi.IF_NONE_MATCH);
    String current = value == null ? null : "\"" + version + ".0\"";
    String method = exchange.getRequestMethod();
    boolean holds =
        (ifMatch == null || ifMatch.equals(current)) && (ifNoneMatch == null || value == null);
    if (method.equals("GET")) {
      if (value == null) {
        exchange.sendResponseHeaders(404, -1);
      } else {
        exchange.getResponseHeaders().set(KvorumApi.ETAG, current);
        exchange.sendResponseHeaders(200, value.length);
        exchange.getResponseBody().write(value);
      }
    } else if (!holds) {
      if (current != null) {
        exchange.getResponseHeaders().set(KvorumApi.ETAG, current);
      }
      exchange.sendResponseHeaders(412, -1);
    } else {
      version++;
      value = method.equals("PUT") ? body : null;
      exchange.getResponseHeaders().set(KvorumApi.ETAG, "\"" + version + ".0\"");
      exchange.sendResponseHeaders(method.equals("PUT") ? 201 : 202, -1);
    }
    exchange.close();
  }

  /** A linearizable read is a GET that says so ({@code consistency=linearizable}). */
  @Test
  void aLinearizableReadAsksForItAndReadsTheValueWithItsTag() {
    assertThat(client.getLinearizable(KEY)).isEmpty();
    String etag = client.putIfAbsent(KEY, "one".getBytes(UTF_8)).etag().orElseThrow();

    assertThat(client.getLinearizable(KEY))
        .hasValueSatisfying(
            v -> {
              assertThat(v.value()).isEqualTo("one".getBytes(UTF_8));
              assertThat(v.etag()).isEqualTo(etag);
            });
    assertThat(queries.get(0)).isEqualTo("id=counter&consistency=linearizable");
    assertThat(queries.get(1)).doesNotContain("consistency");
  }

  @Test
  void onlyTheFirstCreateApplies() {
    ConditionalResult first = client.putIfAbsent(KEY, bytes("a"));
    ConditionalResult second = client.putIfAbsent(KEY, bytes("b"));

    assertThat(first.applied()).isTrue();
    assertThat(second).isEqualTo(new ConditionalResult(false, first.etag()));
    assertThat(client.getVersioned(KEY)).contains(new Versioned(bytes("a"), first.etag().get()));
  }

  @Test
  void aStaleTagIsRefusedWithTheCurrentOne() {
    String old = client.put(KEY, bytes("one"));
    String now = client.put(KEY, bytes("two"));

    assertThat(client.putIfMatch(KEY, bytes("three"), old).etag()).contains(now);
    assertThat(client.putIfMatch(KEY, bytes("three"), old).applied()).isFalse();
    assertThat(client.deleteIfMatch(KEY, old).applied()).isFalse();
    ConditionalResult deleted = client.deleteIfMatch(KEY, now);
    assertThat(deleted.applied()).isTrue();
    assertThat(client.getVersioned(KEY)).isEmpty();
    assertThat(client.putIfMatch(KEY, bytes("four"), now))
        .isEqualTo(new ConditionalResult(false, java.util.Optional.empty()));
  }

  @Test
  void concurrentCompareAndSetIncrementsLoseNone() throws Exception {
    int threads = 4;
    int each = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    client.compareAndSet(
                        KEY,
                        v ->
                            bytes(
                                Long.toString(v.map(b -> Long.parseLong(text(b))).orElse(0L) + 1)),
                        1_000);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(client.getVersioned(KEY).map(v -> text(v.value()))).contains("100");
  }

  @Test
  void compareAndSetGivesUpAfterItsAttempts() {
    client.put(KEY, bytes("0"));
    assertThatThrownBy(
            () ->
                client.compareAndSet(
                    KEY,
                    v -> {
                      client.put(KEY, bytes("interloper"));
                      return bytes("mine");
                    },
                    3))
        .isInstanceOf(KvorumClientException.class)
        .extracting(e -> ((KvorumClientException) e).status())
        .isEqualTo(412);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, UTF_8);
  }
}
