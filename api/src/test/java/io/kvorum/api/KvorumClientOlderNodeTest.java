package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node of kvorum 0.1.0 answers writes and reads without an ETag: the client takes the write as
 * done (a cluster in the middle of a rolling upgrade has such nodes), answering no tag, and reads
 * the value; only a read that asks for the tag fails.
 */
@Timeout(30)
class KvorumClientOlderNodeTest {
  private HttpServer server;
  private KvorumClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(KvorumApi.PATH_ENTITY, KvorumClientOlderNodeTest::serve);
    server.start();
    client = KvorumClient.connect("127.0.0.1", server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private static void serve(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    switch (exchange.getRequestMethod()) {
      case "GET" -> {
        byte[] value = "v".getBytes(UTF_8);
        exchange.sendResponseHeaders(200, value.length);
        exchange.getResponseBody().write(value);
      }
      case "PUT" -> exchange.sendResponseHeaders(201, -1);
      default -> exchange.sendResponseHeaders(202, -1);
    }
    exchange.close();
  }

  @Test
  void aWriteAnsweredWithoutAnEtagIsDoneAndAnswersNoTag() {
    assertThat(client.put("k".getBytes(UTF_8), "v".getBytes(UTF_8))).isNull();
    assertThat(client.delete("k".getBytes(UTF_8), Consistency.DEFAULT)).isNull();
  }

  @Test
  void aReadAnsweredWithoutAnEtagAnswersTheValue() {
    assertThat(client.getUtf8("k")).contains("v");
    assertThatThrownBy(() -> client.getVersioned("k".getBytes(UTF_8)))
        .isInstanceOf(KvorumClientException.class)
        .hasMessageContaining("no ETag answered");
  }
}
