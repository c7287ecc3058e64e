package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The chunk reader against a scripted server, so that framing errors can be produced at will. */
class RangeReaderTest {
  private static final String HEAD =
      "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n"
          + "transfer-encoding: chunked\r\n\r\n";

  @Test
  void readsOneEntryPerChunkEvenWhenValuesHoldNewlines() throws Exception {
    String body = chunk("a\nfirst") + chunk("b\nline1\nline2") + chunk("c\n") + "0\r\n\r\n";
    try (ScriptedServer server = new ScriptedServer(HEAD + body)) {
      List<RangeEntry> entries = new ArrayList<>();
      try (RangeReader reader = server.range()) {
        reader.forEachRemaining(entries::add);
        assertThat(reader.complete()).isTrue();
      }
      assertThat(entries)
          .extracting(RangeEntry::keyUtf8, RangeEntry::valueUtf8)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("a", "first"),
              org.assertj.core.groups.Tuple.tuple("b", "line1\nline2"),
              org.assertj.core.groups.Tuple.tuple("c", ""));
      assertThat(server.request()).startsWith("GET /v0/entities?start=a&end=z HTTP/1.1");
    }
  }

  @Test
  void aResponseCutOffBeforeTheFinalChunkIsAnError() throws Exception {
    try (ScriptedServer server = new ScriptedServer(HEAD + chunk("a\n1"))) {
      RangeReader reader = server.range();
      assertThat(reader.next().keyUtf8()).isEqualTo("a");
      assertThatThrownBy(reader::hasNext)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("incomplete");
      assertThat(reader.complete()).isFalse();
    }
  }

  @Test
  void anErrorStatusBecomesAClientException() throws Exception {
    String problem = "{\"status\":400,\"detail\":\"parameter 'start' is required\"}";
    String response =
        "HTTP/1.1 400 Bad Request\r\ncontent-length: " + problem.length() + "\r\n\r\n" + problem;
    try (ScriptedServer server = new ScriptedServer(response)) {
      assertThatThrownBy(server::range)
          .isInstanceOfSatisfying(
              KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(400))
          .hasMessageContaining("'start' is required");
    }
  }

  private static String chunk(String content) {
    int size = content.getBytes(StandardCharsets.UTF_8).length;
    return Integer.toHexString(size) + "\r\n" + content + "\r\n";
  }

  /** Accepts one connection, reads the request head, writes a fixed response, closes. */
  private static final class ScriptedServer implements AutoCloseable {
    private final ServerSocket socket;
    private final CompletableFuture<String> request = new CompletableFuture<>();

    ScriptedServer(String response) throws IOException {
      socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      Thread.ofVirtual()
          .start(
              () -> {
                try (Socket client = socket.accept()) {
                  request.complete(readHead(client.getInputStream()));
                  OutputStream out = client.getOutputStream();
                  out.write(response.getBytes(StandardCharsets.UTF_8));
                  out.flush();
                } catch (IOException e) {
                  request.completeExceptionally(e);
                }
              });
    }

    RangeReader range() {
      return RangeReader.open(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort()),
          "a".getBytes(StandardCharsets.UTF_8),
          "z".getBytes(StandardCharsets.UTF_8),
          Duration.ofSeconds(5));
    }

    String request() throws Exception {
      return request.get();
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        head.write(b);
        matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
      }
      return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
