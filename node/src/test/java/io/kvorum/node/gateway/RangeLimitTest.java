package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.RangeReader;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range's {@code limit} (SPEC §2): at most that many entries, the first from {@code start}, the
 * rest of the answer unchanged (NDJSON's end line, the chunk form's last chunk); a caller pages on
 * from the last key followed by a zero byte; a limit that is not a positive integer is a 400 naming
 * it.
 */
class RangeLimitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dataDir;
  private FaultyStorageEngine storage;
  private TestNode node;

  @BeforeEach
  void start() {
    node =
        TestNode.start(
            TestConfig.in(dataDir).build(), FaultyStorageEngine.inMemory(e -> storage = e));
    KvorumClient kv = node.client();
    for (int i = 0; i < 5; i++) {
      kv.put("lim/" + i, "v" + i);
    }
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private RawHttpConnection.Response get(String target, String accept) throws Exception {
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

  @Test
  void ndjsonStopsAfterTheLimitWithItsEndLine() throws Exception {
    RawHttpConnection.Response response =
        get("/v0/entities?start=lim/&limit=2", "application/x-ndjson");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.complete()).isTrue();
    List<String> lines = List.of(response.bodyText().split("\n"));
    assertThat(lines).hasSize(3);
    assertThat(key(JSON.readTree(lines.get(0)))).isEqualTo("lim/0");
    assertThat(key(JSON.readTree(lines.get(1)))).isEqualTo("lim/1");
    // The end line, which also carries the cursor a change feed follows the read from.
    assertThat(lines.get(2)).startsWith("{\"end\":true");
  }

  @Test
  void theChunkFormStopsAfterTheLimitToo() throws Exception {
    RawHttpConnection.Response response = get("/v0/entities?start=lim/&end=lim0&limit=3", null);
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.complete()).isTrue();
    assertThat(response.chunks())
        .extracting(chunk -> new String(chunk, UTF_8))
        .containsExactly("lim/0\nv0", "lim/1\nv1", "lim/2\nv2");
  }

  @Test
  void aLimitBeyondTheRangeAnswersTheWholeRange() throws Exception {
    assertThat(get("/v0/entities?start=lim/&limit=999999999", null).chunks()).hasSize(5);
  }

  @Test
  void aCallerPagesOnFromTheLastKeyFollowedByAZeroByte() {
    List<String> read = new ArrayList<>();
    byte[] start = "lim/".getBytes(UTF_8);
    int pages = 0;
    while (true) {
      pages++;
      List<RangeEntry> page = new ArrayList<>();
      try (RangeReader reader = node.client().range(start, "lim0".getBytes(UTF_8), 2)) {
        reader.forEachRemaining(page::add);
        assertThat(reader.complete()).isTrue();
      }
      page.forEach(e -> read.add(e.keyUtf8()));
      if (page.size() < 2) {
        break;
      }
      start = page.get(page.size() - 1).nextStart();
    }
    assertThat(read).containsExactly("lim/0", "lim/1", "lim/2", "lim/3", "lim/4");
    assertThat(pages).isEqualTo(3);
  }

  @Test
  void theScanStopsOnceTheLimitIsReached() throws Exception {
    KvorumClient kv = node.client();
    for (int i = 0; i < 1000; i++) {
      kv.put(String.format("big/%04d", i), "v");
    }
    // A scan read past its first batch would fail and cut the response off.
    storage.failScansAfter(1);
    RawHttpConnection.Response response = get("/v0/entities?start=big/&limit=3", null);
    assertThat(response.complete()).isTrue();
    assertThat(response.chunks()).hasSize(3);
  }

  @Test
  void aLimitThatIsNotAPositiveIntegerIsRefusedNamingIt() throws Exception {
    for (String limit : new String[] {"0", "-1", "x", "", "1.5", "1000000000"}) {
      RawHttpConnection.Response response = get("/v0/entities?start=lim/&limit=" + limit, null);
      assertThat(response.status()).as(limit).isEqualTo(400);
      assertThat(response.header("content-type")).isEqualTo("application/problem+json");
      JsonNode problem = JSON.readTree(response.bodyText());
      assertThat(problem.path("parameter").asText()).isEqualTo("limit");
      assertThat(problem.path("detail").asText()).contains("positive integer");
    }
  }

  private static String key(JsonNode line) {
    return new String(Base64.getDecoder().decode(line.path("key").asText()), UTF_8);
  }
}
