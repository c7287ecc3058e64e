package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.RangeEntry;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The v0 API of one node, end to end over a socket, on RocksDB. */
class HttpApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dataDir;
  private static TestNode node;
  private static KvorumClient kv;

  @BeforeAll
  static void start() {
    node = TestNode.start(TestConfig.in(dataDir).build());
    kv = node.client();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static HttpResponse<byte[]> send(String method, String pathAndQuery) {
    return kv.send(
        HttpRequest.newBuilder(URI.create(node.url(pathAndQuery)))
            .method(method, HttpRequest.BodyPublishers.noBody()));
  }

  private static HttpResponse<byte[]> put(String pathAndQuery, byte[] body) {
    return kv.send(
        HttpRequest.newBuilder(URI.create(node.url(pathAndQuery)))
            .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  @Test
  void putThenGetReturnsTheValue() {
    HttpResponse<byte[]> created = put("/v0/entity?id=greeting", "hello".getBytes(UTF_8));
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.body()).isEmpty();

    HttpResponse<byte[]> read = send("GET", "/v0/entity?id=greeting");
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.headers().firstValue("content-type")).hasValue("application/octet-stream");
    assertThat(new String(read.body(), UTF_8)).isEqualTo("hello");
  }

  @Test
  void writesAnswerTheETagThatReadsThenAnswer() {
    HttpResponse<byte[]> created = put("/v0/entity?id=tagged", "one".getBytes(UTF_8));
    String first = created.headers().firstValue("etag").orElseThrow();
    assertThat(first).matches("\"[0-9]+\\.[0-9]+\"");
    assertThat(send("GET", "/v0/entity?id=tagged").headers().firstValue("etag")).hasValue(first);

    String second = kv.put("tagged", "two");
    assertThat(second).isNotEqualTo(first);
    assertThat(kv.getVersioned("tagged".getBytes(UTF_8)))
        .hasValueSatisfying(v -> assertThat(v.etag()).isEqualTo(second));

    HttpResponse<byte[]> deleted = send("DELETE", "/v0/entity?id=tagged");
    assertThat(deleted.statusCode()).isEqualTo(202);
    assertThat(deleted.headers().firstValue("etag")).isPresent().get().isNotIn(first, second);
    HttpResponse<byte[]> absent = send("GET", "/v0/entity?id=tagged");
    assertThat(absent.statusCode()).isEqualTo(404);
    assertThat(absent.headers().firstValue("etag")).isEmpty();
  }

  @Test
  void conditionalWritesAnswer201Or412WithTheCurrentETag() throws Exception {
    HttpResponse<byte[]> created = conditional("cas", "PUT", "If-None-Match", "*", "one");
    assertThat(created.statusCode()).isEqualTo(201);
    String first = created.headers().firstValue("etag").orElseThrow();

    HttpResponse<byte[]> exists = conditional("cas", "PUT", "If-None-Match", "*", "two");
    assertThat(exists.statusCode()).isEqualTo(412);
    assertThat(exists.headers().firstValue("etag")).hasValue(first);
    assertThat(exists.headers().firstValue("content-type")).hasValue(KvorumApi.PROBLEM_JSON);
    assertThat(JSON.readTree(exists.body()).get("etag").asText()).isEqualTo(first);

    HttpResponse<byte[]> updated = conditional("cas", "PUT", "If-Match", first, "three");
    assertThat(updated.statusCode()).isEqualTo(201);
    String second = updated.headers().firstValue("etag").orElseThrow();
    assertThat(second).isNotEqualTo(first);
    HttpResponse<byte[]> stale = conditional("cas", "PUT", "If-Match", first, "four");
    assertThat(stale.statusCode()).isEqualTo(412);
    assertThat(stale.headers().firstValue("etag")).hasValue(second);
    assertThat(kv.getUtf8("cas")).hasValue("three");

    assertThat(conditional("cas", "DELETE", "If-Match", first, "").statusCode()).isEqualTo(412);
    assertThat(conditional("cas", "DELETE", "If-Match", second, "").statusCode()).isEqualTo(202);
    assertThat(send("GET", "/v0/entity?id=cas").statusCode()).isEqualTo(404);
    HttpResponse<byte[]> absent = conditional("cas", "PUT", "If-Match", second, "five");
    assertThat(absent.statusCode()).isEqualTo(412);
    assertThat(absent.headers().firstValue("etag")).as("the key is absent").isEmpty();
    assertThat(JSON.readTree(absent.body()).has("etag")).isFalse();
    assertThat(conditional("cas", "PUT", "If-None-Match", "*", "six").statusCode()).isEqualTo(201);
    assertThat(kv.getUtf8("cas")).hasValue("six");
  }

  /**
   * {@code consistency=linearizable} reads through the key's acceptors (SPEC §10): the value and
   * its ETag after plain and conditional writes, 404 once deleted or never written, and through
   * {@code KvorumClient.getLinearizable}; any other value of the parameter is a 400 naming it.
   */
  @Test
  void aLinearizableReadAnswersAsAGetAndRefusesOtherConsistencies() throws Exception {
    String plain = kv.put("serial", "plain");
    HttpResponse<byte[]> read = send("GET", "/v0/entity?id=serial&consistency=linearizable");
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(new String(read.body(), UTF_8)).isEqualTo("plain");
    assertThat(read.headers().firstValue("etag")).hasValue(plain);

    String conditional =
        conditional("serial", "PUT", "If-Match", plain, "conditional")
            .headers()
            .firstValue("etag")
            .orElseThrow();
    assertThat(kv.getLinearizable("serial".getBytes(UTF_8)))
        .hasValueSatisfying(
            v -> {
              assertThat(new String(v.value(), UTF_8)).isEqualTo("conditional");
              assertThat(v.etag()).isEqualTo(conditional);
            });
    assertThat(conditional("serial", "DELETE", "If-Match", conditional, "").statusCode())
        .isEqualTo(202);
    assertThat(send("GET", "/v0/entity?id=serial&consistency=linearizable").statusCode())
        .isEqualTo(404);
    assertThat(send("GET", "/v0/entity?id=never-written&consistency=linearizable").statusCode())
        .isEqualTo(404);

    for (String other : new String[] {"quorum", "LINEARIZABLE", "", "serial"}) {
      HttpResponse<byte[]> refused = send("GET", "/v0/entity?id=serial&consistency=" + other);
      assertThat(refused.statusCode()).as("consistency=%s", other).isEqualTo(400);
      assertThat(JSON.readTree(refused.body()).get("parameter").asText()).isEqualTo("consistency");
    }
  }

  /** A condition this node cannot decide is refused rather than ignored. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "PUT|If-Match|*",
        "PUT|If-Match|\"1.0\", \"2.0\"",
        "PUT|If-Match|W/\"1.0\"",
        "PUT|If-None-Match|\"1.0\"",
        "DELETE|If-None-Match|*"
      })
  void aConditionItCannotDecideIsRefused(String method, String header, String value)
      throws Exception {
    String etag = kv.put("guarded", "original");
    HttpResponse<byte[]> refused = conditional("guarded", method, header, value, "overwritten");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(refused.body()).get("parameter").asText()).isEqualTo(header);
    assertThat(kv.getVersioned("guarded".getBytes(UTF_8)))
        .hasValueSatisfying(v -> assertThat(v.etag()).isEqualTo(etag));
  }

  private static HttpResponse<byte[]> conditional(
      String key, String method, String header, String value, String body) {
    return kv.send(
        HttpRequest.newBuilder(URI.create(node.url("/v0/entity?id=" + key)))
            .header(header, value)
            .method(method, HttpRequest.BodyPublishers.ofString(body)));
  }

  @Test
  void anAbsentKeyIs404WithAnEmptyBody() {
    HttpResponse<byte[]> read = send("GET", "/v0/entity?id=never-written");
    assertThat(read.statusCode()).isEqualTo(404);
    assertThat(read.body()).isEmpty();
  }

  @Test
  void theLastWriteWins() {
    kv.put("overwritten", "first");
    kv.put("overwritten", "second");
    assertThat(kv.getUtf8("overwritten")).hasValue("second");
  }

  @Test
  void aDeletedKeyReadsAsAbsent() {
    kv.put("doomed", "value");
    assertThat(send("DELETE", "/v0/entity?id=doomed").statusCode()).isEqualTo(202);
    assertThat(send("GET", "/v0/entity?id=doomed").statusCode()).isEqualTo(404);
    assertThat(send("DELETE", "/v0/entity?id=never-existed").statusCode()).isEqualTo(202);
  }

  @Test
  void aKeyCanBeWrittenAgainAfterItsDelete() {
    kv.put("phoenix", "one");
    kv.delete("phoenix");
    kv.put("phoenix", "two");
    assertThat(kv.getUtf8("phoenix")).hasValue("two");
  }

  @Test
  void emptyValuesAreValues() {
    assertThat(put("/v0/entity?id=empty", new byte[0]).statusCode()).isEqualTo(201);
    HttpResponse<byte[]> read = send("GET", "/v0/entity?id=empty");
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).isEmpty();
  }

  @Test
  void binaryKeysAndValuesRoundTrip() {
    byte[] key = {0, (byte) 0xFF, '\n', '&', '=', '+', '%', '?', (byte) 0x80};
    byte[] value = new byte[256];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) i;
    }
    kv.put(key, value);
    assertThat(kv.get(key)).hasValueSatisfying(v -> assertThat(v).isEqualTo(value));
    assertThat(kv.get(new byte[] {0, (byte) 0xFF})).isEmpty();
  }

  @Test
  void unicodeKeysAreTheirUtf8Bytes() throws Exception {
    kv.put("ключ-🔑", "значение");
    assertThat(kv.getUtf8("ключ-🔑")).hasValue("значение");
    // The same key sent as raw UTF-8 bytes in the request line, not percent-encoded.
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      byte[] line = "GET /v0/entity?id=ключ-🔑 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(UTF_8);
      RawHttpConnection.Response response = raw.write(line).readResponse();
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.bodyText()).isEqualTo("значение");
    }
  }

  @Test
  void plusInAQueryIsASpace() {
    kv.put("two words", "v");
    assertThat(send("GET", "/v0/entity?id=two+words").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/v0/entity?id=two%20words").statusCode()).isEqualTo(200);
  }

  @Test
  void explicitQuorumsWithinTheClusterAreAccepted() {
    assertThat(put("/v0/entity?id=q&ack=1&from=1", new byte[] {1}).statusCode()).isEqualTo(201);
    assertThat(send("GET", "/v0/entity?id=q&replicas=1/1").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/v0/entity?id=q&ack=1").statusCode()).isEqualTo(200);
    assertThat(send("DELETE", "/v0/entity?id=q&from=1").statusCode()).isEqualTo(202);
  }

  @Test
  void aValueWithATtlDisappearsAfterIt() {
    assertThat(put("/v0/entity?id=ephemeral&ttl=700ms", "soon gone".getBytes(UTF_8)).statusCode())
        .isEqualTo(201);
    kv.put("ttl-neighbour", "stays");
    assertThat(kv.getUtf8("ephemeral")).hasValue("soon gone");
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(kv.getUtf8("ephemeral")).isEmpty());
    assertThat(kv.rangeAll("ttl-".getBytes(UTF_8), "ttl.".getBytes(UTF_8)))
        .extracting(RangeEntry::keyUtf8)
        .containsExactly("ttl-neighbour");
    assertThat(kv.rangeAll("ephemeral".getBytes(UTF_8), "ephemerala".getBytes(UTF_8))).isEmpty();
  }

  @Test
  void aBareTtlIsSeconds() {
    kv.put("long-lived".getBytes(UTF_8), "v".getBytes(UTF_8), Consistency.DEFAULT, null);
    assertThat(put("/v0/entity?id=long-lived&ttl=3600", new byte[] {1}).statusCode())
        .isEqualTo(201);
    assertThat(kv.get("long-lived".getBytes(UTF_8))).isPresent();
  }

  @Test
  void rangesAreSortedByKeyBytesWithStartInclusiveAndEndExclusive() throws Exception {
    for (String k : List.of("r/b", "r/a", "r/c", "r/d", "r/a0", "r/\u00e9")) {
      kv.put(k, "value of " + k);
    }
    kv.put("r/dead", "x");
    kv.delete("r/dead");

    assertThat(kv.rangeAll("r/a".getBytes(UTF_8), "r/d".getBytes(UTF_8)))
        .extracting(RangeEntry::keyUtf8)
        .containsExactly("r/a", "r/a0", "r/b", "r/c");
    // No end: to the last key (other tests' keys follow). 'é' (0xC3 0xA9) sorts after ASCII.
    assertThat(kv.rangeAll("r/d".getBytes(UTF_8), null))
        .extracting(RangeEntry::keyUtf8, RangeEntry::valueUtf8)
        .startsWith(
            org.assertj.core.groups.Tuple.tuple("r/d", "value of r/d"),
            org.assertj.core.groups.Tuple.tuple("r/\u00e9", "value of r/\u00e9"));
    // end <= start: nothing.
    assertThat(kv.rangeAll("r/c".getBytes(UTF_8), "r/a".getBytes(UTF_8))).isEmpty();

    // One chunk per entry, key '\n' value, chunked framing closed by the final chunk.
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      RawHttpConnection.Response response = raw.request("GET", "/v0/entities?start=r/a&end=r/b");
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("transfer-encoding")).isEqualTo("chunked");
      assertThat(response.complete()).isTrue();
      assertThat(response.chunks())
          .extracting(c -> new String(c, UTF_8))
          .containsExactly("r/a\nvalue of r/a", "r/a0\nvalue of r/a0");
    }
  }

  @ParameterizedTest(name = "{0} {1} -> 400 naming {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "GET|/v0/entity|id",
        "GET|/v0/entity?id=|id",
        "GET|/v0/entity?ack=1|id",
        "PUT|/v0/entity?id=k&ack=0|ack",
        "PUT|/v0/entity?id=k&ack=-1|ack",
        "PUT|/v0/entity?id=k&ack=one|ack",
        "GET|/v0/entity?id=k&from=0|from",
        "GET|/v0/entity?id=k&from=2|from",
        "GET|/v0/entity?id=k&ack=2&from=1|ack",
        "GET|/v0/entity?id=k&ack=2|ack",
        "GET|/v0/entity?id=k&from=99999999999999|from",
        "GET|/v0/entity?id=k&replicas=1|replicas",
        "GET|/v0/entity?id=k&replicas=2/1|replicas",
        "GET|/v0/entity?id=k&replicas=1/1&ack=1|replicas",
        "DELETE|/v0/entity?id=%zz|id",
        "PUT|/v0/entity?id=k&ttl=soon|ttl",
        "PUT|/v0/entity?id=k&ttl=0|ttl",
        "PUT|/v0/entity?id=k&ttl=1.5s|ttl",
        "PUT|/v0/entity?id=k&ttl=-5s|ttl",
        "GET|/v0/entities|start",
        "GET|/v0/entities?start=|start",
        "GET|/v0/entities?end=z|start",
      })
  void malformedParametersAre400WithAProblemNamingTheParameter(
      String method, String target, String parameter) throws Exception {
    RawHttpConnection.Response response;
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      response = raw.request(method, target);
    }
    assertThat(response.status()).isEqualTo(400);
    assertThat(response.header("content-type")).isEqualTo("application/problem+json");
    JsonNode problem = JSON.readTree(response.body());
    assertThat(problem.path("status").asInt()).isEqualTo(400);
    assertThat(problem.path("parameter").asText()).isEqualTo(parameter);
    assertThat(problem.path("detail").asText()).contains(parameter);
  }

  @Test
  void aKeyOverTheLimitIs400() throws Exception {
    String longKey = "k".repeat(1025);
    HttpResponse<byte[]> response = send("GET", "/v0/entity?id=" + longKey);
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("detail").asText())
        .contains("1025 bytes")
        .contains("1024");
    assertThat(put("/v0/entity?id=" + "k".repeat(1024), new byte[] {1}).statusCode())
        .isEqualTo(201);
  }

  @ParameterizedTest(name = "{0} {1} -> 405, Allow: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "POST|/v0/entity?id=k|GET, PUT, DELETE",
        "PATCH|/v0/entity?id=k|GET, PUT, DELETE",
        "HEAD|/v0/entity?id=k|GET, PUT, DELETE",
        "OPTIONS|/v0/entity?id=k|GET, PUT, DELETE",
        "PUT|/v0/entities?start=a|GET",
        "DELETE|/v0/status|GET",
      })
  void otherMethodsAre405WithAnAllowHeader(String method, String target, String allow) {
    HttpResponse<byte[]> response = send(method, target);
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("allow")).hasValue(allow);
  }

  @Test
  void anUnknownPathIs400() throws Exception {
    for (String path : List.of("/", "/v0", "/v0/entity/x", "/v1/entity?id=k", "/v0/entityx")) {
      HttpResponse<byte[]> response = send("GET", path);
      assertThat(response.statusCode()).as(path).isEqualTo(400);
      assertThat(JSON.readTree(response.body()).path("detail").asText()).contains("no such");
    }
  }

  @Test
  void statusAndHealthAnswerOnceReady() throws Exception {
    HttpResponse<byte[]> status = send("GET", "/v0/status");
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(status.body()).path("status").asText()).isEqualTo("ready");
    assertThat(send("GET", "/health/live").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/health/ready").statusCode()).isEqualTo(200);
  }

  @Test
  void metricsAreInPrometheusTextFormat() {
    kv.put("metered", "v");
    kv.getUtf8("metered");
    HttpResponse<byte[]> metrics = send("GET", "/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain");
    String text = new String(metrics.body(), UTF_8);
    assertThat(text)
        .contains(
            "kvorum_http_request_duration_seconds_count{code=\"201\",node=\"n1\",operation=\"put\"}")
        .contains("kvorum_http_request_duration_seconds_bucket{")
        .contains("kvorum_disk_free_bytes{")
        .contains("kvorum_disk_total_bytes{")
        .contains("kvorum_http_requests_inflight")
        .contains("kvorum_storage_keys")
        .contains("kvorum_storage_operations_seconds_count")
        .contains("jvm_memory_used_bytes");
  }
}
