package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code POST /v0/batch} on one node (SPEC §2): each item answered as it alone would be, in order;
 * a batch checked whole before any item runs (a malformed, conditional or repeated item is a 400
 * naming it, and nothing is written); more than 100 items or 16 MiB a 413; a batch of gets needs a
 * read token, one that writes a write token.
 */
class BatchApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String READER = "batch-reader-token";
  private static final String WRITER = "batch-writer-token";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static TestNode node;
  private static TestNode guarded;

  @BeforeAll
  static void start() throws Exception {
    node = TestNode.start(TestConfig.in(dir.resolve("open")).build());
    Path tokens =
        Files.writeString(dir.resolve("tokens"), READER + " read\n" + WRITER + " write\n");
    guarded = TestNode.start(TestConfig.in(dir.resolve("guarded")).authTokens(tokens).build());
  }

  @AfterAll
  static void stop() {
    node.close();
    guarded.close();
  }

  private static HttpResponse<String> post(
      TestNode to, String query, String body, String... headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(to.url("/v0/batch" + query)))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(UTF_8));
  }

  @Test
  void eachItemIsAnsweredAsItAloneWouldBeInTheItemsOrder() throws Exception {
    KvorumClient kv = node.client();
    String tag = kv.put("mix/present", "here");
    kv.put("mix/doomed", "soon gone");
    String body =
        "{\"items\": ["
            + "{\"op\": \"put\", \"id\": \"mix/new\", \"value\": \""
            + b64("fresh")
            + "\"},"
            + "{\"op\": \"put\", \"id\": \"mix/brief\", \"value\": \"\", \"ttl\": \"1h\"},"
            + "{\"op\": \"put\", \"id\": \"mix/whole\", \"value\": \"\", \"ttl\": 3600.0},"
            + "{\"op\": \"get\", \"id\": \"mix/present\"},"
            + "{\"op\": \"get\", \"id\": \"mix/absent\"},"
            + "{\"op\": \"delete\", \"id\": \"mix/doomed\"}]}";
    HttpResponse<String> answer = post(node, "?ack=1&from=1", body);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode results = JSON.readTree(answer.body()).path("results");
    assertThat(results).hasSize(6);
    assertThat(results.get(0).path("id").asText()).isEqualTo("mix/new");
    assertThat(results.get(0).path("status").asInt()).isEqualTo(201);
    assertThat(results.get(1).path("status").asInt()).isEqualTo(201);
    assertThat(results.get(2).path("status").asInt()).as("a ttl of 3600.0 seconds").isEqualTo(201);
    assertThat(results.get(3).path("status").asInt()).isEqualTo(200);
    assertThat(results.get(3).path("etag").asText()).isEqualTo(tag);
    assertThat(results.get(3).path("value").asText()).isEqualTo(b64("here"));
    assertThat(results.get(4).path("status").asInt()).isEqualTo(404);
    assertThat(results.get(4).has("etag")).isFalse();
    assertThat(results.get(5).path("status").asInt()).isEqualTo(202);

    assertThat(kv.getUtf8("mix/new")).hasValue("fresh");
    assertThat(kv.getVersioned("mix/new".getBytes(UTF_8)).orElseThrow().etag())
        .isEqualTo(results.get(0).path("etag").asText());
    assertThat(kv.get("mix/brief".getBytes(UTF_8)))
        .hasValueSatisfying(v -> assertThat(v).isEmpty());
    assertThat(kv.getUtf8("mix/doomed")).isEmpty();
    assertThat(JSON.readTree(post(node, "", "{\"items\": []}").body()).path("results")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "a key twice|{'items': [{'op': 'get', 'id': 'k'}, {'op': 'put', 'id': 'k', 'value': ''}]}"
            + "|items[1].id|of items[0]",
        "a conditional item|{'items': [{'op': 'put', 'id': 'k', 'value': '', 'ifMatch': 'x'}]}"
            + "|items[0].ifMatch|conditional",
        "an unknown op|{'items': [{'op': 'cas', 'id': 'k'}]}|items[0].op|get, put or delete",
        "no id|{'items': [{'op': 'get'}]}|items[0].id|required",
        "an empty id|{'items': [{'op': 'get', 'id': ''}]}|items[0].id|must not be empty",
        "a put without a value|{'items': [{'op': 'put', 'id': 'k'}]}|items[0].value|required",
        "a get with a value|{'items': [{'op': 'get', 'id': 'k', 'value': ''}]}|items[0].value|no value",
        "a value not base64|{'items': [{'op': 'put', 'id': 'k', 'value': '!!'}]}|items[0].value|base64",
        "a bad ttl|{'items': [{'op': 'put', 'id': 'k', 'value': '', 'ttl': '5y'}]}|items[0].ttl|ttl",
        "a fractional ttl|{'items': [{'op': 'put', 'id': 'k', 'value': '', 'ttl': 1.5}]}"
            + "|items[0].ttl|number of seconds",
        "a null ttl|{'items': [{'op': 'put', 'id': 'k', 'value': '', 'ttl': null}]}"
            + "|items[0].ttl|number of seconds",
        "an unknown member|{'items': [{'op': 'get', 'id': 'k', 'tll': 1}]}|items[0].tll|unknown",
        "no items|{'things': []}|items|items",
        "not JSON|{items|items|not valid JSON",
        "a member twice|{'items': [], 'items': []}|items|not valid JSON",
      })
  void aMalformedBatchIs400NamingTheItemAndNothingRuns(
      String what, String body, String parameter, String detail) throws Exception {
    HttpResponse<String> answer = post(node, "", body.replace('\'', '"'));
    assertThat(answer.statusCode()).as(what).isEqualTo(400);
    assertThat(answer.headers().firstValue("content-type")).hasValue("application/problem+json");
    JsonNode problem = JSON.readTree(answer.body());
    assertThat(problem.path("parameter").asText()).as(what).isEqualTo(parameter);
    assertThat(problem.path("detail").asText()).as(what).contains(detail);
  }

  @Test
  void nothingOfARefusedBatchRuns() throws Exception {
    String body =
        "{\"items\": [{\"op\": \"put\", \"id\": \"refused/first\", \"value\": \"\"},"
            + " {\"op\": \"delete\", \"id\": \"refused/first\"}]}";
    assertThat(post(node, "", body).statusCode()).isEqualTo(400);
    assertThat(node.client().get("refused/first".getBytes(UTF_8))).isEmpty();
  }

  @Test
  void conditionalHeadersOnABatchAre400() throws Exception {
    HttpResponse<String> answer = post(node, "", "{\"items\": []}", "If-Match", "\"1.0\"");
    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(answer.body()).path("parameter").asText()).isEqualTo("If-Match");
  }

  @Test
  void moreThan100ItemsOr16MiBAre413AndNothingRuns() throws Exception {
    StringBuilder items = new StringBuilder("{\"items\": [");
    for (int i = 0; i < 101; i++) {
      items.append(i == 0 ? "" : ",").append("{\"op\": \"put\", \"id\": \"many/").append(i);
      items.append("\", \"value\": \"\"}");
    }
    HttpResponse<String> answer = post(node, "", items.append("]}").toString());
    assertThat(answer.statusCode()).isEqualTo(413);
    assertThat(JSON.readTree(answer.body()).path("detail").asText()).contains("101 items");
    assertThat(node.client().getUtf8("many/0")).isEmpty();

    String big =
        "{\"items\": [{\"op\": \"put\", \"id\": \"big\", \"value\": \""
            + "A".repeat((16 << 20) + 4)
            + "\"}]}";
    HttpResponse<String> tooBig = post(node, "", big);
    assertThat(tooBig.statusCode()).isEqualTo(413);
    assertThat(JSON.readTree(tooBig.body()).path("detail").asText())
        .contains(String.valueOf(16 << 20));
    assertThat(node.client().getUtf8("big")).isEmpty();
  }

  @Test
  void aBatchOfGetsNeedsAReadTokenOneThatWritesAWriteToken() throws Exception {
    String gets = "{\"items\": [{\"op\": \"get\", \"id\": \"t/a\"}]}";
    String puts = "{\"items\": [{\"op\": \"put\", \"id\": \"t/a\", \"value\": \"\"}]}";
    assertThat(post(guarded, "", gets).statusCode()).isEqualTo(401);
    assertThat(post(guarded, "", gets, "Authorization", "Bearer " + READER).statusCode())
        .isEqualTo(200);
    HttpResponse<String> refused = post(guarded, "", puts, "Authorization", "Bearer " + READER);
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(refused.body()).path("required").asText()).isEqualTo("write");
    assertThat(post(guarded, "", puts, "Authorization", "Bearer " + WRITER).statusCode())
        .isEqualTo(200);
  }
}
