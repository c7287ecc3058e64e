package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.RangeReader;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.RechunkingProxy;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NDJSON form of a range (SPEC §2): asked for with {@code Accept: application/x-ndjson}, one
 * JSON object a line with base64 key and value and the version's tag, a last {@code {"end":true}};
 * an error line before the cut when the range fails midway; framing that survives a proxy that
 * re-chunks the body. The seed chunk form stays the default.
 */
class RangeNdjsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dataDir;
  private FaultyStorageEngine storage;
  private TestNode node;

  @BeforeEach
  void start() {
    node =
        TestNode.start(
            TestConfig.in(dataDir).build(), FaultyStorageEngine.inMemory(e -> storage = e));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private RawHttpConnection.Response range(String target, String accept) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      raw.write(
          "GET "
              + target
              + " HTTP/1.1\r\nHost: test\r\n"
              + (accept == null ? "" : "Accept: " + accept + "\r\n")
              + "\r\n");
      return raw.readResponse();
    }
  }

  private static List<JsonNode> lines(RawHttpConnection.Response response) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : response.bodyText().split("\n")) {
      if (!line.isEmpty()) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }

  @Test
  void eachEntryIsOneJsonLineWithBase64KeyValueAndTagThenAnEndLine() throws Exception {
    KvorumClient kv = node.client();
    String tagA = kv.put("nd/a".getBytes(UTF_8), "one\ntwo".getBytes(UTF_8));
    byte[] binary = {0, 10, (byte) 0xFF, 13};
    kv.put("nd/b".getBytes(UTF_8), binary);
    kv.put("nd/c", "gone");
    kv.delete("nd/c");

    RawHttpConnection.Response response =
        range("/v0/entities?start=nd/&end=nd0", "application/x-ndjson");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.header("content-type")).isEqualTo("application/x-ndjson");
    assertThat(response.complete()).isTrue();
    assertThat(response.bodyText()).endsWith("\n");
    List<JsonNode> lines = lines(response);
    assertThat(lines).hasSize(3);
    Base64.Decoder base64 = Base64.getDecoder();
    assertThat(base64.decode(lines.get(0).path("key").asText())).isEqualTo("nd/a".getBytes(UTF_8));
    assertThat(base64.decode(lines.get(0).path("value").asText()))
        .isEqualTo("one\ntwo".getBytes(UTF_8));
    assertThat(lines.get(0).path("etag").asText()).isEqualTo(tagA);
    assertThat(base64.decode(lines.get(1).path("value").asText())).isEqualTo(binary);
    // The end line carries the cursor a change feed follows the read from, as the header does.
    assertThat(lines.get(2).path("end").asBoolean()).isTrue();
    assertThat(lines.get(2).path("cursor").asText())
        .isEqualTo(response.header("kvorum-cursor"))
        .matches("[0-9]+");

    // An empty range is the end line alone.
    assertThat(lines(range("/v0/entities?start=zz", "application/x-ndjson")))
        .singleElement()
        .satisfies(end -> assertThat(end.path("end").asBoolean()).isTrue());
  }

  @Test
  void theChunkFormStaysTheDefault() throws Exception {
    node.client().put("cf/a", "1");
    for (String accept :
        new String[] {null, "*/*", "application/octet-stream", "application/x-ndjson;q=0, */*"}) {
      RawHttpConnection.Response response = range("/v0/entities?start=cf/", accept);
      assertThat(response.header("content-type")).as(accept).isEqualTo("application/octet-stream");
      assertThat(response.chunks()).as(accept).hasSize(1);
      assertThat(new String(response.chunks().get(0), UTF_8)).isEqualTo("cf/a\n1");
    }
  }

  @Test
  void aRangeThatFailsMidwaySaysWhyInALastLineAndHasNoEndLine() throws Exception {
    KvorumClient kv = node.client();
    for (int i = 0; i < 1000; i++) {
      kv.put(String.format("cut/%04d", i), "v");
    }
    storage.failScansAfter(1);
    RawHttpConnection.Response response = range("/v0/entities?start=cut/", "application/x-ndjson");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.complete()).as("final chunk present").isFalse();
    List<JsonNode> lines = lines(response);
    assertThat(lines).hasSizeGreaterThan(1).hasSizeLessThan(1000);
    JsonNode last = lines.get(lines.size() - 1);
    // The failed node's keys are no longer covered: the 504 the range would have answered at once.
    assertThat(last.path("error").path("status").asInt()).isEqualTo(504);
    assertThat(last.path("error").path("title").asText()).isEqualTo("Not Enough Replicas");
    assertThat(last.path("error").path("detail").asText()).isNotEmpty();
    assertThat(lines).noneMatch(line -> line.has("end"));

    storage.failScansAfter(1);
    try (RangeReader reader = kv.range("cut/".getBytes(UTF_8), null)) {
      // The node's reason when the client read the error line before the connection ended, else
      // an I/O error (the JDK client may report the cut before the last bytes): never an end.
      assertThatThrownBy(() -> reader.forEachRemaining(entry -> {}))
          .isInstanceOfAny(KvorumClientException.class, UncheckedIOException.class)
          .satisfies(
              cut -> {
                if (cut instanceof KvorumClientException reason) {
                  assertThat(reason.status()).isEqualTo(504);
                  assertThat(reason).hasMessageContaining("range cut off");
                }
              });
      assertThat(reader.complete()).isFalse();
    }
  }

  @Test
  void aRangeReChunkedByAProxyIsReadBackExactly() throws Exception {
    KvorumClient kv = node.client();
    Random random = new Random(27);
    List<RangeEntry> written = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      byte[] key = String.format("px/%04d", i).getBytes(UTF_8);
      byte[] value = new byte[random.nextInt(3000)];
      random.nextBytes(value);
      written.add(new RangeEntry(key, value));
      kv.put(key, value);
    }
    try (RechunkingProxy proxy = new RechunkingProxy(node.address(), 7);
        KvorumClient viaProxy = KvorumClient.connect("127.0.0.1", proxy.address().getPort())) {
      List<RangeEntry> read = new ArrayList<>();
      try (RangeReader reader = viaProxy.range("px/".getBytes(UTF_8), "px0".getBytes(UTF_8))) {
        reader.forEachRemaining(read::add);
        assertThat(reader.complete()).isTrue();
      }
      assertThat(read).containsExactlyElementsOf(written);
      assertThat(read).allMatch(entry -> entry.etag() != null);
    }
  }
}
