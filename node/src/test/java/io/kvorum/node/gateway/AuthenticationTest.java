package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A node run with {@code --auth-tokens}: who gets in where (SPEC §9). */
class AuthenticationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String READER = "reader-5f2c9d0e8a7b4c1d";
  private static final String WRITER = "writer-0a1b2c3d4e5f6a7b";
  private static final String ADMIN = "admin-9e8d7c6b5a4f3e2d";
  @TempDir static Path dir;
  private static Path tokens;
  private static TestNode node;

  @BeforeAll
  static void start() throws Exception {
    tokens =
        Files.writeString(
            dir.resolve("tokens"),
            "# test tokens\n" + READER + " read\n" + WRITER + " write\n" + ADMIN + " admin\n");
    node = TestNode.start(TestConfig.in(dir.resolve("data")).authTokens(tokens).build());
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static HttpResponse<byte[]> send(String token, String method, String pathAndQuery) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(node.url(pathAndQuery)))
            .method(method, HttpRequest.BodyPublishers.ofString("v"));
    if (token != null) {
      request.header("Authorization", token);
    }
    return node.client().send(request);
  }

  @ParameterizedTest
  @CsvSource({
    "GET, /v0/entity?id=k",
    "PUT, /v0/entity?id=k",
    "DELETE, /v0/entity?id=k",
    "GET, /v0/entities?start=a",
    "GET, /v0/status",
    "GET, /v0/cluster",
    "POST, /v0/repair",
    "POST, /v0/cluster/remove?node=n9",
    "GET, /v0/no-such-endpoint",
  })
  void withoutATokenEveryV0RequestIs401WithABearerChallenge(String method, String target)
      throws Exception {
    HttpResponse<byte[]> answer = send(null, method, target);

    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(answer.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"kvorum\"");
    assertThat(answer.headers().firstValue("content-type")).hasValue(KvorumApi.PROBLEM_JSON);
    JsonNode problem = JSON.readTree(answer.body());
    assertThat(problem.path("status").asInt()).isEqualTo(401);
    assertThat(problem.path("type").asText()).isEqualTo(ProblemType.UNAUTHORIZED.uri());
    assertThat(problem.path("detail").asText()).contains("bearer token");
  }

  @ParameterizedTest
  @CsvSource({
    "Bearer not-a-known-token-0000",
    "Bearer ",
    "Basic cmVhZGVyOnNlY3JldA==",
    "reader-5f2c9d0e8a7b4c1d",
    "Bearer reader-5f2c9d0e8a7b4c1",
  })
  void anUnknownTokenOrAnotherSchemeIs401(String authorization) {
    HttpResponse<byte[]> answer = send(authorization, "GET", "/v0/entity?id=k");

    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(answer.headers().firstValue("www-authenticate"))
        .get()
        .asString()
        .startsWith("Bearer");
  }

  @Test
  void aReadTokenReadsButMayNotWrite() throws Exception {
    try (KvorumClient writer = node.client().withToken(WRITER);
        KvorumClient reader = node.client().withToken(READER)) {
      writer.put("shared", "by the writer");

      assertThat(reader.getUtf8("shared")).hasValue("by the writer");
      assertThat(reader.rangeAll("s".getBytes(UTF_8), "t".getBytes(UTF_8))).hasSize(1);
      assertThatThrownBy(() -> reader.put("shared", "by the reader"))
          .isInstanceOfSatisfying(
              KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(403));
      assertThatThrownBy(() -> reader.delete("shared"))
          .isInstanceOfSatisfying(
              KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(403));
      assertThat(reader.getUtf8("shared")).hasValue("by the writer");
    }
    HttpResponse<byte[]> refused = send("Bearer " + READER, "PUT", "/v0/entity?id=k");
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.headers().firstValue("content-type")).hasValue(KvorumApi.PROBLEM_JSON);
    JsonNode problem = JSON.readTree(refused.body());
    assertThat(problem.path("type").asText()).isEqualTo(ProblemType.FORBIDDEN.uri());
    assertThat(problem.path("role").asText()).isEqualTo("read");
    assertThat(problem.path("required").asText()).isEqualTo("write");
  }

  @Test
  void aWriteTokenWritesReadsAndDeletes() {
    assertThat(send("Bearer " + WRITER, "PUT", "/v0/entity?id=w").statusCode()).isEqualTo(201);
    assertThat(send("Bearer " + WRITER, "GET", "/v0/entity?id=w").statusCode()).isEqualTo(200);
    assertThat(send("bearer  " + WRITER + " ", "GET", "/v0/entity?id=w").statusCode())
        .as("the scheme in any case, blanks around the token")
        .isEqualTo(200);
    assertThat(send("Bearer " + WRITER, "DELETE", "/v0/entity?id=w").statusCode()).isEqualTo(202);
  }

  @Test
  void onlyAnAdminStartsARepairOrChangesTheCluster() {
    assertThat(send("Bearer " + WRITER, "POST", KvorumApi.PATH_REPAIR).statusCode()).isEqualTo(403);
    assertThat(send("Bearer " + READER, "POST", KvorumApi.PATH_REPAIR).statusCode()).isEqualTo(403);
    assertThat(send("Bearer " + WRITER, "POST", "/v0/cluster/decommission").statusCode())
        .isEqualTo(403);
    assertThat(send("Bearer " + ADMIN, "POST", KvorumApi.PATH_REPAIR).statusCode()).isEqualTo(202);
    assertThat(send("Bearer " + READER, "GET", KvorumApi.PATH_CLUSTER).statusCode()).isEqualTo(200);
    assertThat(send("Bearer " + ADMIN, "PUT", "/v0/entity?id=a").statusCode()).isEqualTo(201);
  }

  @ParameterizedTest
  @CsvSource({KvorumApi.PATH_LIVE, KvorumApi.PATH_READY, KvorumApi.PATH_METRICS})
  void probesAndMetricsNeedNoToken(String path) {
    assertThat(send(null, "GET", path).statusCode()).isEqualTo(200);
    assertThat(send("Bearer not-a-known-token-0000", "GET", path).statusCode()).isEqualTo(200);
  }

  @Test
  void otherPathsStayA400() {
    assertThat(send(null, "GET", "/nowhere").statusCode()).isEqualTo(400);
  }

  @Test
  void aChangedTokensFileIsTakenWithoutARestart() throws Exception {
    String original = Files.readString(tokens);
    String rotated = "rotated-1d2c3b4a59687766";
    try {
      Files.writeString(tokens, original + rotated + " write\n");
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> send("Bearer " + rotated, "PUT", "/v0/entity?id=r").statusCode() == 201);

      Files.writeString(tokens, original);
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> send("Bearer " + rotated, "GET", "/v0/entity?id=r").statusCode() == 401);
    } finally {
      Files.writeString(tokens, original);
    }
  }
}
