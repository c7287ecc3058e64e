package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.storage.SpaceWatch;
import io.kvorum.node.testing.CapturedLog;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a client sees when this node's storage is slow, saturated, full or failing. */
class HttpFailureTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dataDir;
  private FaultyStorageEngine storage;
  private TestNode node;

  @BeforeEach
  void start() {
    node =
        TestNode.start(
            TestConfig.in(dataDir).requestTimeout(Duration.ofMillis(300)).build(),
            FaultyStorageEngine.inMemory(engine -> storage = engine));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private RawHttpConnection.Response request(String method, String target) throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      return raw.request(method, target);
    }
  }

  @Test
  void storageSlowerThanTheRequestTimeoutIs504NotEnoughReplicas() throws Exception {
    node.client().put("slow", "v");
    storage.delay(Duration.ofSeconds(2));
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      RawHttpConnection.Response response = request(method, "/v0/entity?id=slow");
      assertThat(response.status()).as(method).isEqualTo(504);
      assertThat(response.reason()).isEqualTo("Not Enough Replicas");
      JsonNode problem = JSON.readTree(response.body());
      assertThat(problem.path("required").asInt()).isEqualTo(1);
      assertThat(problem.path("answered").asInt()).isZero();
      assertThat(problem.path("failed").isObject() && problem.path("failed").isEmpty()).isTrue();
      assertThat(problem.path("pending").toString()).isEqualTo("[\"n1\"]");
    }
    storage.heal();
    assertThat(node.client().getUtf8("slow")).isPresent();
  }

  @Test
  void aSaturatedStorageQueueIs503WithRetryAfter() throws Exception {
    storage.failWith(new OverloadedException("storage"));
    RawHttpConnection.Response response = request("GET", "/v0/entity?id=any");
    assertThat(response.status()).isEqualTo(503);
    assertThat(response.header("retry-after")).isEqualTo("1");
    assertThat(response.bodyText()).contains("overloaded");
  }

  @Test
  void aFullDiskIs507() throws Exception {
    storage.failWith(new StorageException(StorageException.Kind.NO_SPACE, "put", null, null));
    RawHttpConnection.Response response = request("PUT", "/v0/entity?id=k");
    assertThat(response.status()).isEqualTo(507);
    assertThat(response.bodyText()).contains("disk is full");
  }

  /**
   * Issue 11: on a full disk every write (PUT and DELETE alike) is 507, reads and readiness go on,
   * the log says so once, and writes succeed again as soon as the disk takes them.
   */
  @Test
  void aFullDiskRefusesEveryWriteWith507UntilItTakesWritesAgain() throws Exception {
    node.client().put("written-before", "still readable");
    try (CapturedLog log = CapturedLog.of(SpaceWatch.class)) {
      storage.failWritesWith(
          new StorageException(StorageException.Kind.NO_SPACE, "put", null, null));
      for (int i = 0; i < 5; i++) {
        for (String method : new String[] {"PUT", "DELETE"}) {
          RawHttpConnection.Response refused = request(method, "/v0/entity?id=written-before");
          assertThat(refused.status()).as(method).isEqualTo(507);
          assertThat(refused.header("content-type")).isEqualTo("application/problem+json");
          assertThat(refused.bodyText()).contains("disk is full");
        }
      }
      assertThat(node.client().getUtf8("written-before")).hasValue("still readable");
      assertThat(request("GET", "/health/ready").status()).isEqualTo(200);
      assertThat(noSpaceGauge()).isEqualTo(1);
      assertThat(log.lines(Level.WARN)).singleElement().asString().contains("the disk is full");

      storage.heal();
      node.client().put("written-after", "v");
      node.client().delete("written-before");

      assertThat(node.client().getUtf8("written-after")).hasValue("v");
      assertThat(node.client().getUtf8("written-before")).isEmpty();
      assertThat(noSpaceGauge()).isZero();
      assertThat(log.lines(Level.WARN)).hasSize(1);
      assertThat(log.lines(Level.INFO)).containsExactly("disk space is back: writes succeed again");
    }
  }

  private double noSpaceGauge() {
    return node.bootstrap().registry().get("kvorum.storage.no.space").gauge().value();
  }

  @Test
  void anyOtherStorageFailureIs500WithAProblem() throws Exception {
    storage.failWith(new StorageException(StorageException.Kind.FAILURE, "get", null, null));
    RawHttpConnection.Response response = request("GET", "/v0/entity?id=k");
    assertThat(response.status()).isEqualTo(500);
    assertThat(response.header("content-type")).isEqualTo("application/problem+json");
  }

  @Test
  void aRangeThatFailsMidwayIsCutOffWithoutItsFinalChunk() throws Exception {
    KvorumClient kv = node.client();
    for (int i = 0; i < 1000; i++) {
      kv.put(String.format("cut/%04d", i), "v");
    }
    storage.failScansAfter(1);
    RawHttpConnection.Response response = request("GET", "/v0/entities?start=cut/");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.chunks()).isNotEmpty().hasSizeLessThan(1000);
    assertThat(response.complete()).as("final chunk present").isFalse();
  }

  @Test
  void shutdownLetsRequestsInFlightFinishAndRefusesNewConnections() throws Exception {
    node.client().put("in-flight", "v");
    storage.delay(Duration.ofMillis(150));
    CompletableFuture<RawHttpConnection.Response> inFlight = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                inFlight.complete(request("GET", "/v0/entity?id=in-flight"));
              } catch (Exception e) {
                inFlight.completeExceptionally(e);
              }
            });
    org.awaitility.Awaitility.await()
        .until(
            () ->
                node.bootstrap().registry().get("kvorum.http.requests.inflight").gauge().value()
                    > 0);
    int port = node.port();
    node.stop();
    assertThat(inFlight.get().status()).isEqualTo(200);
    assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
        .isInstanceOf(ConnectException.class);
  }

  /** With RocksDB and a disk budget, writes beyond it get 507 and reads keep working. */
  @Test
  void aRealDiskBudgetRunsOutAs507AndReadsStillWork(@TempDir Path rocksDir) {
    try (TestNode budgeted =
        TestNode.start(TestConfig.in(rocksDir).diskBudget(2 << 20, 1 << 20).build())) {
      KvorumClient kv = budgeted.client();
      kv.put("before-full", "still readable");
      byte[] value = new byte[64 << 10];
      Random random = new Random(3);
      Integer full = null;
      for (int i = 0; i < 2000 && full == null; i++) {
        random.nextBytes(value);
        try {
          kv.put(("fill/" + i).getBytes(UTF_8), value);
        } catch (io.kvorum.api.KvorumClientException e) {
          full = e.status();
          assertThat(e.detail()).contains("disk is full");
        }
      }
      assertThat(full).as("status once the budget is used up").isEqualTo(507);
      assertThat(kv.getUtf8("before-full")).hasValue("still readable");
    }
  }
}
