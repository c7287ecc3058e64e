package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.RecordBatch;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.testing.FeedReader;
import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Keeps the OpenAPI document true: every path, method and status it documents is provoked against a
 * running node and must come back as documented, and nothing is documented without a recipe.
 */
class OpenApiConformanceTest {
  private static final Set<String> METHODS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options");

  private static final String READ_TOKEN = "Bearer conformance-reader-token";
  private static final String WRITE_TOKEN = "Bearer conformance-writer-token";

  @TempDir Path dataDir;
  private FaultyStorageEngine storage;
  private TestNode node;
  private TestNode guardedNode;
  private TestNode rocksNode;

  /** Provokes one documented answer and returns the status the node gave. */
  @FunctionalInterface
  private interface Recipe {
    int run() throws Exception;
  }

  @BeforeEach
  void start() {
    node =
        TestNode.start(
            TestConfig.in(dataDir)
                .requestTimeout(Duration.ofMillis(200))
                .maxValueBytes(1024)
                .build(),
            FaultyStorageEngine.inMemory(engine -> storage = engine));
  }

  @AfterEach
  void stop() {
    node.close();
    if (guardedNode != null) {
      guardedNode.close();
    }
    if (rocksNode != null) {
      rocksNode.close();
    }
  }

  /**
   * Sends a request with {@code authorization} (or none) to a node of its own run with {@code
   * --auth-tokens}.
   */
  private int guarded(String authorization, String method, String target) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(guardedNode().address())) {
      raw.write(
          method
              + " "
              + target
              + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
              + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
              + "\r\n");
      return raw.readResponse().status();
    }
  }

  /** A node of its own run with {@code --auth-tokens}, started on first use. */
  private TestNode guardedNode() throws Exception {
    if (guardedNode == null) {
      Path tokens =
          Files.writeString(
              dataDir.resolve("tokens"),
              READ_TOKEN.substring(7) + " read\n" + WRITE_TOKEN.substring(7) + " write\n");
      guardedNode =
          TestNode.start(
              TestConfig.in(dataDir.resolve("guarded")).authTokens(tokens).build(),
              FaultyStorageEngine.inMemory(engine -> {}));
    }
    return guardedNode;
  }

  private Map<String, Recipe> recipes() {
    Map<String, Recipe> r = new TreeMap<>();
    r.put("GET /v0/entity 200", () -> put("k", "v") == 201 ? send("GET", "/v0/entity?id=k") : -1);
    r.put("GET /v0/entity 400", () -> send("GET", "/v0/entity"));
    r.put("GET /v0/entity 404", () -> send("GET", "/v0/entity?id=absent"));
    r.put("GET /v0/entity 503", () -> faulty(overloaded(), "GET", "/v0/entity?id=k"));
    r.put("GET /v0/entity 504", () -> slow("GET", "/v0/entity?id=k"));
    r.put("PUT /v0/entity 201", () -> put("k", "v"));
    r.put("PUT /v0/entity 400", () -> send("PUT", "/v0/entity?id=k&ack=0"));
    r.put(
        "PUT /v0/entity 412",
        () -> put("k", "v") == 201 ? conditional("PUT", "If-None-Match: *") : -1);
    r.put("PUT /v0/entity 413", () -> put("k", "x".repeat(1025)));
    r.put("PUT /v0/entity 503", () -> faulty(overloaded(), "PUT", "/v0/entity?id=k"));
    r.put("PUT /v0/entity 504", () -> slow("PUT", "/v0/entity?id=k"));
    r.put("PUT /v0/entity 507", () -> faulty(diskFull(), "PUT", "/v0/entity?id=k"));
    r.put(
        "GET /v0/entity 507",
        () -> faulty(diskFull(), "GET", "/v0/entity?id=k&consistency=linearizable"));
    r.put("DELETE /v0/entity 202", () -> send("DELETE", "/v0/entity?id=k"));
    r.put("DELETE /v0/entity 400", () -> send("DELETE", "/v0/entity?id="));
    r.put("DELETE /v0/entity 412", () -> conditional("DELETE", "If-Match: \"1.0\""));
    r.put("DELETE /v0/entity 503", () -> faulty(overloaded(), "DELETE", "/v0/entity?id=k"));
    r.put("DELETE /v0/entity 504", () -> slow("DELETE", "/v0/entity?id=k"));
    r.put("DELETE /v0/entity 507", () -> faulty(diskFull(), "DELETE", "/v0/entity?id=k"));
    r.put("GET /v0/entities 200", () -> send("GET", "/v0/entities?start=a"));
    r.put("GET /v0/entities 400", () -> send("GET", "/v0/entities"));
    r.put("GET /v0/entities 503", () -> whileDraining("/v0/entities?start=a"));
    r.put("GET /v0/entities 504", () -> unreachablePeerBeforeTheFirstEntry());
    r.put("GET /v0/changes 200", () -> feed("start=a"));
    r.put("GET /v0/changes 400", () -> send("GET", "/v0/changes?start=a&since=yesterday"));
    r.put("GET /v0/changes 410", () -> send("GET", "/v0/changes?start=a&since=1000000000"));
    r.put("GET /v0/changes 501", this::feedWithoutCapture);
    r.put("GET /v0/changes 503", () -> whileDraining("/v0/changes?start=a"));
    r.put("GET /v0/status 200", () -> send("GET", KvorumApi.PATH_STATUS));
    r.put("GET /v0/cluster 200", () -> send("GET", KvorumApi.PATH_CLUSTER));
    r.put("POST /v0/repair 202", () -> send("POST", KvorumApi.PATH_REPAIR));
    r.put("GET /v0/status 503", () -> whileDraining(KvorumApi.PATH_STATUS));
    r.put("GET /health/live 200", () -> send("GET", KvorumApi.PATH_LIVE));
    r.put("GET /health/ready 200", () -> send("GET", KvorumApi.PATH_READY));
    r.put("GET /health/ready 503", () -> whileDraining(KvorumApi.PATH_READY));
    r.put("GET /metrics 200", () -> send("GET", KvorumApi.PATH_METRICS));
    r.put("GET /v0/entity 401", () -> guarded(null, "GET", "/v0/entity?id=k"));
    r.put("PUT /v0/entity 401", () -> guarded("Bearer unknown-token", "PUT", "/v0/entity?id=k"));
    r.put("PUT /v0/entity 403", () -> guarded(READ_TOKEN, "PUT", "/v0/entity?id=k"));
    r.put("DELETE /v0/entity 401", () -> guarded(null, "DELETE", "/v0/entity?id=k"));
    r.put("DELETE /v0/entity 403", () -> guarded(READ_TOKEN, "DELETE", "/v0/entity?id=k"));
    r.put("GET /v0/entities 401", () -> guarded(null, "GET", "/v0/entities?start=a"));
    r.put("GET /v0/status 401", () -> guarded(null, "GET", KvorumApi.PATH_STATUS));
    r.put("GET /v0/changes 401", () -> guarded(null, "GET", "/v0/changes?start=a"));
    r.put("GET /v0/cluster 401", () -> guarded(null, "GET", KvorumApi.PATH_CLUSTER));
    r.put("POST /v0/repair 401", () -> guarded(null, "POST", KvorumApi.PATH_REPAIR));
    r.put("POST /v0/repair 403", () -> guarded(WRITE_TOKEN, "POST", KvorumApi.PATH_REPAIR));
    r.put("POST /v0/cluster/remove 400", () -> send("POST", KvorumApi.PATH_REMOVE + "?node=n1"));
    r.put("POST /v0/cluster/remove 404", () -> send("POST", KvorumApi.PATH_REMOVE + "?node=zz"));
    r.put("POST /v0/cluster/remove 409", () -> membershipChanges().get("remove live"));
    r.put("POST /v0/cluster/remove 202", () -> membershipChanges().get("remove dead"));
    r.put("POST /v0/cluster/remove 200", () -> membershipChanges().get("remove dead joining"));
    r.put("POST /v0/cluster/decommission 409", () -> membershipChanges().get("second change"));
    r.put("POST /v0/cluster/decommission 202", () -> membershipChanges().get("decommission"));
    r.put(
        "POST /v0/cluster/decommission 401",
        () -> guarded(null, "POST", KvorumApi.PATH_DECOMMISSION));
    r.put(
        "POST /v0/cluster/decommission 403",
        () -> guarded(WRITE_TOKEN, "POST", KvorumApi.PATH_DECOMMISSION));
    r.put(
        "POST /v0/cluster/remove 401",
        () -> guarded(null, "POST", KvorumApi.PATH_REMOVE + "?node=n2"));
    r.put(
        "POST /v0/cluster/remove 403",
        () -> guarded(WRITE_TOKEN, "POST", KvorumApi.PATH_REMOVE + "?node=n2"));
    snapshotRecipes(r);
    loadRecipes(r);
    batchRecipes(r);
    return r;
  }

  private void batchRecipes(Map<String, Recipe> r) {
    String gets = "{\"items\": [{\"op\": \"get\", \"id\": \"k\"}]}";
    String puts = "{\"items\": [{\"op\": \"put\", \"id\": \"k\", \"value\": \"\"}]}";
    String big =
        "{\"items\": [{\"op\": \"put\", \"id\": \"k\", \"value\": \"" + "A".repeat(1100) + "\"}]}";
    r.put("POST /v0/batch 200", () -> postBatch(node, null, gets));
    r.put("POST /v0/batch 400", () -> postBatch(node, null, "{\"items\": 1}"));
    r.put("POST /v0/batch 413", () -> postBatch(node, null, big));
    r.put("POST /v0/batch 503", () -> whileDraining("POST", KvorumApi.PATH_BATCH));
    r.put("POST /v0/batch 401", () -> guarded(null, "POST", KvorumApi.PATH_BATCH));
    r.put("POST /v0/batch 403", () -> postBatch(guardedNode(), READ_TOKEN, puts));
  }

  private int postBatch(TestNode to, String authorization, String body) throws Exception {
    byte[] bytes = body.getBytes(UTF_8);
    try (RawHttpConnection raw = new RawHttpConnection(to.address())) {
      raw.write(
          "POST "
              + KvorumApi.PATH_BATCH
              + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
              + bytes.length
              + "\r\n"
              + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
              + "\r\n");
      raw.write(bytes);
      return raw.readResponse().status();
    }
  }

  private void loadRecipes(Map<String, Recipe> r) {
    byte[] batch =
        RecordBatch.encode(
            List.of(new Entry(Key.utf8("k"), Record.value(Version.of(1_000, 0), new byte[] {1}))));
    r.put("POST /v0/load 200", () -> postLoad(batch));
    r.put("POST /v0/load 400", () -> postLoad("not a batch".getBytes(StandardCharsets.UTF_8)));
    r.put("POST /v0/load 413", () -> postLoad(new byte[1025]));
    r.put("POST /v0/load 503", () -> loadWhile(() -> storage.failWith(overloaded()), batch));
    r.put("POST /v0/load 504", () -> loadWhile(() -> storage.delay(Duration.ofSeconds(1)), batch));
    r.put("POST /v0/load 507", () -> loadWhile(() -> storage.failWith(diskFull()), batch));
    r.put("POST /v0/load 401", () -> guarded(null, "POST", KvorumApi.PATH_LOAD));
    r.put("POST /v0/load 403", () -> guarded(WRITE_TOKEN, "POST", KvorumApi.PATH_LOAD));
  }

  private int postLoad(byte[] body) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      raw.write(
          "POST "
              + KvorumApi.PATH_LOAD
              + " HTTP/1.1\r\nHost: x\r\nContent-Type: "
              + KvorumApi.RECORDS
              + "\r\nContent-Length: "
              + body.length
              + "\r\n\r\n");
      raw.write(body);
      return raw.readResponse().status();
    }
  }

  private int loadWhile(Runnable fault, byte[] body) throws Exception {
    fault.run();
    try {
      return postLoad(body);
    } finally {
      storage.heal();
    }
  }

  private void snapshotRecipes(Map<String, Recipe> r) {
    String snapshots = KvorumApi.PATH_SNAPSHOTS;
    r.put("POST /v0/snapshots 201", () -> onRocksDb("POST", snapshots + "?name=first"));
    r.put(
        "POST /v0/snapshots 409",
        () ->
            onRocksDb("POST", snapshots + "?name=twice") == 201
                ? onRocksDb("POST", snapshots + "?name=twice")
                : -1);
    r.put("POST /v0/snapshots 400", () -> onRocksDb("POST", snapshots + "?name=..%2Fetc"));
    r.put("GET /v0/snapshots 200", () -> onRocksDb("GET", snapshots));
    r.put(
        "DELETE /v0/snapshots/{name} 204",
        () ->
            onRocksDb("POST", snapshots + "?name=gone") == 201
                ? onRocksDb("DELETE", snapshots + "/gone")
                : -1);
    r.put("DELETE /v0/snapshots/{name} 404", () -> onRocksDb("DELETE", snapshots + "/absent"));
    for (String method : List.of("POST", "GET")) {
      r.put(method + " /v0/snapshots 401", () -> guarded(null, method, snapshots + "?name=s"));
      r.put(
          method + " /v0/snapshots 403", () -> guarded(WRITE_TOKEN, method, snapshots + "?name=s"));
    }
    String files = snapshots + "/listed/files";
    r.put(
        "GET /v0/snapshots/{name}/files 200",
        () -> onRocksDb("POST", snapshots + "?name=listed") == 201 ? onRocksDb("GET", files) : -1);
    r.put("GET /v0/snapshots/{name}/files 404", () -> onRocksDb("GET", snapshots + "/no/files"));
    r.put(
        "GET /v0/snapshots/{name}/files/{file} 200",
        () ->
            onRocksDb("POST", snapshots + "?name=read") == 201
                ? onRocksDb("GET", snapshots + "/read/files/CURRENT")
                : -1);
    r.put(
        "GET /v0/snapshots/{name}/files/{file} 404",
        () -> {
          int noSnapshot = onRocksDb("GET", snapshots + "/no/files/CURRENT");
          int noFile =
              onRocksDb("POST", snapshots + "?name=nofile") == 201
                  ? onRocksDb("GET", snapshots + "/nofile/files/000999.sst")
                  : -1;
          return noSnapshot == noFile ? noFile : -1;
        });
    for (String path : List.of("/s/files", "/s/files/CURRENT")) {
      String key = path.endsWith("files") ? "{name}/files" : "{name}/files/{file}";
      r.put("GET /v0/snapshots/" + key + " 401", () -> guarded(null, "GET", snapshots + path));
      r.put(
          "GET /v0/snapshots/" + key + " 403", () -> guarded(WRITE_TOKEN, "GET", snapshots + path));
    }
    r.put("DELETE /v0/snapshots/{name} 401", () -> guarded(null, "DELETE", snapshots + "/s"));
    r.put(
        "DELETE /v0/snapshots/{name} 403", () -> guarded(WRITE_TOKEN, "DELETE", snapshots + "/s"));
  }

  /** Sends a request to a node of its own on RocksDB (snapshots need a real engine). */
  private int onRocksDb(String method, String target) throws Exception {
    if (rocksNode == null) {
      rocksNode = TestNode.start(TestConfig.in(dataDir.resolve("rocks")).build());
    }
    try (RawHttpConnection raw = new RawHttpConnection(rocksNode.address())) {
      return raw.request(method, target).status();
    }
  }

  private Map<String, Integer> changes;

  /**
   * The answers of membership changes, from one scenario on a 3-node cluster: removing a live node,
   * removing a dead one, a second change while that one runs, and a decommission after it; and
   * removing a node that died while it joined.
   */
  private Map<String, Integer> membershipChanges() throws Exception {
    if (changes != null) {
      return changes;
    }
    changes = new TreeMap<>();
    try (LocalCluster cluster = LocalCluster.start(3)) {
      changes.put("remove live", post(cluster, 1, KvorumApi.PATH_REMOVE + "?node=n2"));
      cluster.stop(3);
      changes.put("remove dead", post(cluster, 1, KvorumApi.PATH_REMOVE + "?node=n3"));
      changes.put("second change", post(cluster, 1, KvorumApi.PATH_DECOMMISSION));
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(cluster, 2, KvorumApi.PATH_CLUSTER).path("nodes").size() == 2);
      changes.put("decommission", post(cluster, 2, KvorumApi.PATH_DECOMMISSION));
    }
    // A slow stream, so that the join is in progress when its node dies.
    try (LocalCluster cluster = LocalCluster.start(3, c -> c.repair(256, Duration.ofHours(1)))) {
      for (int i = 0; i < 100; i++) {
        cluster.client(1).put("k" + i, "v" + i);
      }
      int joined = cluster.join(1);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(cluster, 1, KvorumApi.PATH_CLUSTER).path("change").has("kind"));
      cluster.stop(joined);
      changes.put(
          "remove dead joining",
          post(cluster, 1, KvorumApi.PATH_REMOVE + "?node=" + cluster.id(joined)));
    }
    return changes;
  }

  private static int post(LocalCluster cluster, int node, String target) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(cluster.node(node).url(target)))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static JsonNode get(LocalCluster cluster, int node, String target) throws Exception {
    return new ObjectMapper()
        .readTree(
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create(cluster.node(node).url(target))).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
  }

  @Test
  void everyDocumentedAnswerIsWhatTheNodeGives() throws Exception {
    Map<String, Recipe> recipes = recipes();
    assertThat(recipes.keySet())
        .as("recipes must match the documented paths, methods and statuses")
        .containsExactlyInAnyOrderElementsOf(documentedAnswers());
    for (Map.Entry<String, Recipe> recipe : recipes.entrySet()) {
      storage.heal();
      String answer = recipe.getKey();
      int expected = Integer.parseInt(answer.substring(answer.length() - 3));
      assertThat(recipe.getValue().run()).as(answer).isEqualTo(expected);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aNotEnoughReplicasBodyCarriesEveryDocumentedMember() throws Exception {
    Map<String, Object> schemas =
        (Map<String, Object>) ((Map<String, Object>) document().get("components")).get("schemas");
    List<Map<String, Object>> parts =
        (List<Map<String, Object>>)
            ((Map<String, Object>) schemas.get("NotEnoughReplicasProblem")).get("allOf");
    List<String> members = (List<String>) parts.get(1).get("required");

    storage.delay(Duration.ofSeconds(1));
    RawHttpConnection.Response response;
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      response = raw.request("GET", "/v0/entity?id=k");
    }

    assertThat(response.status()).isEqualTo(504);
    JsonNode body = new ObjectMapper().readTree(response.body());
    assertThat(members).isNotEmpty().allSatisfy(m -> assertThat(body.has(m)).as(m).isTrue());
    assertThat(body.path("failed").isObject()).isTrue();
    assertThat(body.path("pending").isArray()).isTrue();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> document() throws IOException {
    try (InputStream in = KvorumApi.class.getResourceAsStream(KvorumApi.OPENAPI_RESOURCE)) {
      return new Yaml().load(in);
    }
  }

  /**
   * The document lists no operation for other methods and says they get 405 with an {@code Allow}
   * header naming the listed ones (as schemathesis's unsupported_method check expects).
   */
  @Test
  void everyMethodAPathDoesNotListIs405WithTheListedOnesAllowed() throws Exception {
    Map<String, Set<String>> listed = new TreeMap<>();
    for (String answer : documentedAnswers()) {
      String[] parts = answer.split(" ");
      listed.computeIfAbsent(parts[1], p -> new TreeSet<>()).add(parts[0]);
    }
    HttpClient http = HttpClient.newHttpClient();
    for (Map.Entry<String, Set<String>> path : listed.entrySet()) {
      for (String method : Set.of("GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS")) {
        if (path.getValue().contains(method)) {
          continue;
        }
        HttpResponse<Void> response =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(
                            node.url(
                                path.getKey()
                                    .replace("{name}", "a-name")
                                    .replace("{file}", "CURRENT"))))
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        assertThat(response.statusCode()).as(method + " " + path.getKey()).isEqualTo(405);
        assertThat(response.headers().firstValue("Allow").orElse("").split(", "))
            .as("Allow of " + path.getKey())
            .containsExactlyInAnyOrderElementsOf(path.getValue());
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Set<String> documentedAnswers() throws Exception {
    Map<String, Object> doc = document();
    Set<String> answers = new TreeSet<>();
    Map<String, Object> paths = (Map<String, Object>) doc.get("paths");
    paths.forEach(
        (path, item) ->
            ((Map<String, Object>) item)
                .forEach(
                    (method, operation) -> {
                      if (METHODS.contains(method)) {
                        Map<String, Object> responses =
                            (Map<String, Object>)
                                ((Map<String, Object>) operation).get("responses");
                        responses
                            .keySet()
                            .forEach(
                                status ->
                                    answers.add(
                                        method.toUpperCase(Locale.ROOT)
                                            + " "
                                            + path
                                            + " "
                                            + status));
                      }
                    }));
    return answers;
  }

  /** Opens a feed and answers its status (the body streams on: it is closed unread). */
  private int feed(String query) {
    try (FeedReader feed = FeedReader.open(URI.create(node.url("/")), query)) {
      return feed.status();
    }
  }

  /** A feed asked of a node of its own that captures no changes ({@code --change-retention 0}). */
  private int feedWithoutCapture() {
    try (TestNode uncaptured =
            TestNode.start(
                TestConfig.in(dataDir.resolve("uncaptured"))
                    .changeRetention(Duration.ZERO)
                    .build());
        FeedReader feed = FeedReader.open(URI.create(uncaptured.url("/")), "start=a")) {
      return feed.status();
    }
  }

  private int send(String method, String target) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      return raw.request(method, target).status();
    }
  }

  /** A conditional write of key {@code k} with {@code condition} (a header line). */
  private int conditional(String method, String condition) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      raw.write(
          method
              + " /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
              + condition
              + "\r\n\r\n");
      return raw.readResponse().status();
    }
  }

  private int put(String key, String value) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      raw.write(
          "PUT /v0/entity?id="
              + key
              + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
              + value.length()
              + "\r\n\r\n"
              + value);
      return raw.readResponse().status();
    }
  }

  private int faulty(RuntimeException error, String method, String target) throws Exception {
    storage.failWith(error);
    try {
      return send(method, target);
    } finally {
      storage.heal();
    }
  }

  private int slow(String method, String target) throws Exception {
    storage.delay(Duration.ofSeconds(1));
    try {
      return send(method, target);
    } finally {
      storage.heal();
    }
  }

  /**
   * Sends {@code target} to a node that is draining: a graceful shutdown held open by a slow
   * request in flight, on a connection opened before the shutdown began (new ones are refused).
   * Uses a node of its own, since it stops it.
   */
  private int whileDraining(String target) throws Exception {
    return whileDraining("GET", target);
  }

  private int whileDraining(String method, String target) throws Exception {
    FaultyStorageEngine[] slowStorage = new FaultyStorageEngine[1];
    TestNode draining =
        TestNode.start(
            TestConfig.in(dataDir.resolve("draining-" + System.nanoTime())).build(),
            FaultyStorageEngine.inMemory(engine -> slowStorage[0] = engine));
    try (RawHttpConnection early = new RawHttpConnection(draining.address());
        RawHttpConnection held = new RawHttpConnection(draining.address())) {
      slowStorage[0].delay(Duration.ofMillis(800));
      held.write("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n");
      Awaitility.await()
          .until(
              () ->
                  draining
                          .bootstrap()
                          .registry()
                          .get("kvorum.http.requests.inflight")
                          .gauge()
                          .value()
                      > 0);
      int port = draining.port();
      Thread stopper = Thread.startVirtualThread(draining::stop);
      Awaitility.await().until(() -> refusesConnections(port));
      int status = early.request(method, target).status();
      assertThat(held.readResponse().status()).as("the request in flight finishes").isEqualTo(404);
      stopper.join();
      return status;
    }
  }

  /**
   * A two-node cluster holding single-copy keys on both nodes, whose other node answers too late
   * for the first batch of a range: without it, the range cannot hold every key.
   */
  private int unreachablePeerBeforeTheFirstEntry() throws Exception {
    try (LocalCluster cluster =
        LocalCluster.start(2, c -> c.requestTimeout(Duration.ofMillis(200)))) {
      for (int i = 0; i < 20; i++) {
        cluster.client(1).put(("a" + i).getBytes(UTF_8), new byte[] {1}, Consistency.of(1, 1));
      }
      cluster.network().delay(cluster.id(1), cluster.id(2), Duration.ofSeconds(1));
      try (RawHttpConnection raw = new RawHttpConnection(cluster.node(1).address())) {
        return raw.request("GET", "/v0/entities?start=a").status();
      }
    }
  }

  private static boolean refusesConnections(int port) {
    try (Socket probe = new Socket("127.0.0.1", port)) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static OverloadedException overloaded() {
    return new OverloadedException("storage");
  }

  private static StorageException diskFull() {
    return new StorageException(StorageException.Kind.NO_SPACE, "put", null, null);
  }
}
