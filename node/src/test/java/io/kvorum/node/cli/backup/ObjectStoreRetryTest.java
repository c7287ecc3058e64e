package io.kvorum.node.cli.backup;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A file streamed from a node is uploaded again when the storage fails an attempt: the SDK retries
 * it, and the body is read anew from the node (a stream read once cannot be read again: every retry
 * used to fail with "the request stream could not be reset").
 */
class ObjectStoreRetryTest {
  private HttpServer storage;
  private final AtomicInteger puts = new AtomicInteger();
  private final List<String> stored = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    System.setProperty("aws.accessKeyId", "key");
    System.setProperty("aws.secretAccessKey", "secret");
    storage = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    // The first PUT is answered 500 InternalError (as S3 now and then does), the next ones 200.
    storage.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          if (puts.incrementAndGet() == 1) {
            byte[] error =
                "<Error><Code>InternalError</Code><Message>Please try again.</Message></Error>"
                    .getBytes(UTF_8);
            exchange.sendResponseHeaders(500, error.length);
            exchange.getResponseBody().write(error);
          } else {
            stored.add(new String(body, UTF_8));
            exchange.getResponseHeaders().add("ETag", "\"0\"");
            exchange.sendResponseHeaders(200, -1);
          }
          exchange.close();
        });
    storage.start();
  }

  /** Options reaching the storage above, path-style. */
  private StorageOptions options() {
    StorageOptions options = new StorageOptions();
    options.endpoint = URI.create("http://127.0.0.1:" + storage.getAddress().getPort());
    options.pathStyle = true;
    options.region = "us-east-1";
    return options;
  }

  @AfterEach
  void stop() {
    storage.stop(0);
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @Test
  void anAttemptTheStorageFailsIsSentAgainFromAStreamOpenedAnew() {
    AtomicInteger opened = new AtomicInteger();
    byte[] file = "the bytes of one snapshot file".getBytes(UTF_8);

    try (ObjectStore store = ObjectStore.open(options(), new StorageLocation("bucket", ""))) {
      store.upload(
          "data/n1/file",
          () -> {
            opened.incrementAndGet();
            InputStream fromTheNode = new ByteArrayInputStream(file);
            return fromTheNode;
          },
          file.length);
    }

    assertThat(puts).hasValue(2);
    assertThat(opened).as("the file read once per attempt").hasValue(2);
    assertThat(stored).singleElement().asString().contains("the bytes of one snapshot file");
  }

  @Test
  void aMemberThatCannotBeReadFailsTheUploadInItsOwnWords() {
    try (ObjectStore store = ObjectStore.open(options(), new StorageLocation("bucket", ""))) {
      assertThatThrownBy(
              () ->
                  store.upload(
                      "data/n1/file",
                      () -> {
                        throw new BackupFailure(1, "n1: connection refused");
                      },
                      10))
          .isInstanceOf(BackupFailure.class)
          .hasMessage("n1: connection refused");
    }
    assertThat(stored).isEmpty();
  }
}
