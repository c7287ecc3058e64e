package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.RepositoryScripts;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Every problem+json answer names its type, a URI of the section of {@code docs/errors.md} that
 * explains it (issue 27): every type has its section, and the node's answers carry their types.
 */
class ProblemTypeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} +(.+?) *$");

  @TempDir Path dataDir;
  private FaultyStorageEngine storage;
  private TestNode node;

  @BeforeEach
  void start() {
    node =
        TestNode.start(
            TestConfig.in(dataDir).requestTimeout(Duration.ofMillis(200)).maxValueBytes(16).build(),
            FaultyStorageEngine.inMemory(engine -> storage = engine));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  /** The anchors GitHub gives the headings of a markdown document. */
  private static Set<String> anchors(String markdown) {
    Matcher heading = HEADING.matcher(markdown);
    Set<String> anchors = new HashSet<>();
    while (heading.find()) {
      anchors.add(
          heading
              .group(1)
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{N} _-]", "")
              .replace(' ', '-'));
    }
    return anchors;
  }

  @Test
  void everyTypeHasItsSectionInTheErrorsDocument() throws IOException {
    Set<String> anchors =
        anchors(Files.readString(RepositoryScripts.repository().resolve("docs/errors.md")));
    assertThat(Arrays.stream(ProblemType.values()).map(ProblemType::anchor))
        .as("types without a section in docs/errors.md")
        .allSatisfy(anchor -> assertThat(anchors).contains(anchor));
    assertThat(ProblemType.values())
        .allSatisfy(
            type ->
                assertThat(type.uri())
                    .isEqualTo(
                        "https://github.com/kvorum/kvorum/blob/main/docs/errors.md#"
                            + type.anchor()));
  }

  @Test
  void everyFailureKindHasATypeOfItsOwn() {
    Set<ProblemType> types =
        Arrays.stream(FailureKind.values()).map(ProblemType::of).collect(Collectors.toSet());
    assertThat(types).hasSize(FailureKind.values().length);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theOpenApiDocumentDescribesTheTypesTheNodeAnswers() throws IOException {
    Map<String, Object> document;
    try (InputStream in = KvorumApi.class.getResourceAsStream(KvorumApi.OPENAPI_RESOURCE)) {
      document = new Yaml().load(in);
    }
    Map<String, Object> problem =
        (Map<String, Object>)
            ((Map<String, Object>)
                    ((Map<String, Object>) document.get("components")).get("schemas"))
                .get("Problem");
    Map<String, Object> type =
        (Map<String, Object>) ((Map<String, Object>) problem.get("properties")).get("type");
    Pattern pattern = Pattern.compile((String) type.get("pattern"));
    assertThat(ProblemType.values())
        .allSatisfy(t -> assertThat(pattern.matcher(t.uri()).find()).as(t.uri()).isTrue());
    assertThat((String) type.get("example")).isEqualTo(ProblemType.NOT_ENOUGH_REPLICAS.uri());
  }

  private JsonNode problem(String method, String target, String headers, String body)
      throws IOException {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      raw.write(
          method
              + " "
              + target
              + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
              + body.length()
              + "\r\n"
              + headers
              + "\r\n"
              + body);
      RawHttpConnection.Response response = raw.readResponse();
      assertThat(response.header("Content-Type")).isEqualTo(KvorumApi.PROBLEM_JSON);
      return JSON.readTree(response.body());
    }
  }

  private static String typeOf(JsonNode problem) {
    return problem.path("type").asText();
  }

  @Test
  void theNodesAnswersCarryTheirTypes() throws Exception {
    assertThat(typeOf(problem("GET", "/v0/entity?id=k&ack=0", "", "")))
        .isEqualTo(ProblemType.INVALID_REQUEST.uri());
    assertThat(typeOf(problem("GET", "/v1/nothing", "", "")))
        .isEqualTo(ProblemType.UNKNOWN_ENDPOINT.uri());
    assertThat(typeOf(problem("PATCH", "/v0/entity?id=k", "", "")))
        .isEqualTo(ProblemType.METHOD_NOT_ALLOWED.uri());
    assertThat(typeOf(problem("PUT", "/v0/entity?id=k", "", "a value over sixteen bytes")))
        .isEqualTo(ProblemType.REQUEST_TOO_LARGE.uri());
    node.client().put("k", "v");
    assertThat(typeOf(problem("PUT", "/v0/entity?id=k", "If-None-Match: *\r\n", "v")))
        .isEqualTo(ProblemType.CONDITION_FAILED.uri());
    assertThat(typeOf(problem("DELETE", "/v0/snapshots/none", "", "")))
        .isEqualTo(ProblemType.UNKNOWN_SNAPSHOT.uri());
    assertThat(typeOf(problem("POST", "/v0/cluster/remove?node=stranger", "", "")))
        .isEqualTo(ProblemType.UNKNOWN_NODE.uri());

    storage.failWith(new OverloadedException("storage"));
    assertThat(typeOf(problem("GET", "/v0/entity?id=k", "", "")))
        .isEqualTo(ProblemType.OVERLOADED.uri());
    storage.failWith(new StorageException(StorageException.Kind.NO_SPACE, "put", null, null));
    assertThat(typeOf(problem("PUT", "/v0/entity?id=k", "", "v")))
        .isEqualTo(ProblemType.NO_SPACE.uri());
    storage.heal();
    storage.delay(Duration.ofSeconds(1));
    JsonNode notEnough = problem("GET", "/v0/entity?id=k", "", "");
    assertThat(typeOf(notEnough)).isEqualTo(ProblemType.NOT_ENOUGH_REPLICAS.uri());
    assertThat(notEnough.path("title").asText()).isEqualTo("Not Enough Replicas");
  }

  private static String typeOf(FullHttpResponse response) throws IOException {
    try {
      return typeOf(JSON.readTree(ByteBufUtil.getBytes(response.content())));
    } finally {
      response.release();
    }
  }

  @Test
  void theProtocolsRefusalsCarryTheirTypes() throws Exception {
    assertThat(typeOf(HttpErrorMapper.undecodable(new TooLongHttpLineException("long"))))
        .isEqualTo(ProblemType.REQUEST_LINE_TOO_LONG.uri());
    assertThat(typeOf(HttpErrorMapper.undecodable(new TooLongHttpHeaderException("large"))))
        .isEqualTo(ProblemType.HEADERS_TOO_LARGE.uri());
    assertThat(typeOf(HttpErrorMapper.undecodable(new IllegalArgumentException("garbage"))))
        .isEqualTo(ProblemType.MALFORMED_REQUEST.uri());
    assertThat(typeOf(HttpErrorMapper.versionNotSupported(HttpVersion.valueOf("HTTP/2.0"))))
        .isEqualTo(ProblemType.HTTP_VERSION_NOT_SUPPORTED.uri());
    assertThat(typeOf(HttpErrorMapper.methodNotAllowed(HttpMethod.PATCH, "GET")))
        .isEqualTo(ProblemType.METHOD_NOT_ALLOWED.uri());
  }
}
