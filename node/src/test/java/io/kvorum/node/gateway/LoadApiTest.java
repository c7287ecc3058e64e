package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.RecordBatch;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.LocalCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code POST /v0/load} on three nodes (SPEC §11): each record of a batch reaches its replicas as
 * it was, with its version, tombstone and expiry; last-writer-wins keeps what is newer; a batch
 * sent twice changes nothing; a malformed batch is refused whole with problem+json.
 */
@Timeout(60)
class LoadApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PAST = System.currentTimeMillis() - 3_600_000;
  private static LocalCluster cluster;

  @BeforeAll
  static void start() {
    cluster = LocalCluster.start(3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static Version past(int logical) {
    return Version.of(PAST, logical);
  }

  private static Entry entry(String key, Record record) {
    return new Entry(Key.utf8(key), record);
  }

  private static HttpResponse<byte[]> post(int node, byte[] body) {
    return cluster
        .node(node)
        .client()
        .send(
            HttpRequest.newBuilder(URI.create(cluster.node(node).url(KvorumApi.PATH_LOAD)))
                .header("Content-Type", KvorumApi.RECORDS)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  /** Waits until every node holds exactly {@code expected} under {@code key}. */
  private static void everyReplicaHolds(String key, Record expected) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              for (int i = 1; i <= cluster.size(); i++) {
                assertThat(cluster.node(i).stored(key)).as("n%d's %s", i, key).contains(expected);
              }
            });
  }

  @Test
  void valuesTombstonesAndExpiriesReachEveryReplicaWithTheirVersions() throws Exception {
    long expiry = System.currentTimeMillis() + 3_600_000;
    Record value = Record.value(past(1), "old".getBytes(UTF_8), Record.NO_EXPIRY, 3);
    Record tombstone = Record.tombstone(past(2), 3);
    Record expiring = Record.value(past(3), "ttl".getBytes(UTF_8), expiry, 3);
    Record expired = Record.value(past(4), "gone".getBytes(UTF_8), PAST + 1, 3);
    Record binary = Record.value(past(5), new byte[] {0, 1, 0, (byte) 0xFF}, Record.NO_EXPIRY, 3);

    HttpResponse<byte[]> answer =
        post(
            1,
            RecordBatch.encode(
                List.of(
                    entry("a-value", value),
                    entry("a-tombstone", tombstone),
                    entry("an-expiring-value", expiring),
                    entry("an-expired-value", expired),
                    entry("a-binary-value", binary))));

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(answer.body()).path("records").asInt()).isEqualTo(5);
    everyReplicaHolds("a-value", value);
    everyReplicaHolds("a-tombstone", tombstone);
    everyReplicaHolds("an-expiring-value", expiring);
    everyReplicaHolds("an-expired-value", expired);
    everyReplicaHolds("a-binary-value", binary);
    // Clients see them as the snapshot's cluster did: the version as the ETag, deletes and
    // expired values absent.
    assertThat(cluster.node(2).client().getVersioned("a-value".getBytes(UTF_8)))
        .hasValueSatisfying(v -> assertThat(v.etag()).isEqualTo(EntityTags.format(past(1))));
    assertThat(cluster.node(3).client().getUtf8("an-expiring-value")).contains("ttl");
    assertThat(cluster.node(3).client().getUtf8("a-tombstone")).isEmpty();
    assertThat(cluster.node(3).client().getUtf8("an-expired-value")).isEmpty();
  }

  @Test
  void aNewerRecordInTheClusterStays() {
    cluster.node(1).client().put("written-since", "newer");
    Record newer = cluster.node(1).stored("written-since").orElseThrow();

    assertThat(
            post(
                    2,
                    RecordBatch.encode(
                        List.of(
                            entry(
                                "written-since",
                                Record.value(past(1), "older".getBytes(UTF_8), 0, 3)),
                            entry("deleted-since", Record.value(past(2), "x".getBytes(UTF_8))))))
                .statusCode())
        .isEqualTo(200);
    cluster.node(1).client().delete("deleted-since");

    everyReplicaHolds("written-since", newer);
    assertThat(cluster.node(3).client().getUtf8("written-since")).contains("newer");
    assertThat(cluster.node(3).client().getUtf8("deleted-since")).isEmpty();
  }

  @Test
  void aBatchLoadedTwiceChangesNothing() {
    byte[] batch =
        RecordBatch.encode(
            List.of(
                entry("twice-1", Record.value(past(1), "one".getBytes(UTF_8), 0, 3)),
                entry("twice-2", Record.tombstone(past(2), 3))));
    assertThat(post(1, batch).statusCode()).isEqualTo(200);
    everyReplicaHolds("twice-1", Record.value(past(1), "one".getBytes(UTF_8), 0, 3));
    everyReplicaHolds("twice-2", Record.tombstone(past(2), 3));
    List<Optional<Record>> once =
        Arrays.asList(
            cluster.node(1).stored("twice-1"),
            cluster.node(2).stored("twice-2"),
            cluster.node(3).stored("twice-1"));

    assertThat(post(3, batch).statusCode()).isEqualTo(200);

    assertThat(
            Arrays.asList(
                cluster.node(1).stored("twice-1"),
                cluster.node(2).stored("twice-2"),
                cluster.node(3).stored("twice-1")))
        .isEqualTo(once);
  }

  @Test
  void aRecordMeantForMoreReplicasThanTheClusterHasGoesToEveryNode() {
    Record five = Record.value(past(1), "v".getBytes(UTF_8), 0, 5);

    assertThat(post(1, RecordBatch.encode(List.of(entry("from-five", five)))).statusCode())
        .isEqualTo(200);

    everyReplicaHolds("from-five", Record.value(past(1), "v".getBytes(UTF_8), 0, 3));
  }

  @Test
  void aMalformedBatchIsRefusedWholeWithProblemJson() throws Exception {
    byte[] good = RecordBatch.encode(List.of(entry("never-1", Record.value(past(1), new byte[1]))));
    byte[] truncated = Arrays.copyOf(good, good.length - 1);
    byte[] twoThenTruncated =
        RecordBatch.encode(
            List.of(
                entry("never-2", Record.value(past(1), new byte[1])),
                entry("never-3", Record.value(past(1), new byte[1]))));
    twoThenTruncated = Arrays.copyOf(twoThenTruncated, twoThenTruncated.length - 3);
    byte[] badKind = good.clone();
    badKind[4 + 4 + "never-1".length() + 8] = 7;

    for (byte[] body :
        List.of("not a batch".getBytes(UTF_8), truncated, twoThenTruncated, badKind)) {
      HttpResponse<byte[]> answer = post(1, body);
      assertThat(answer.statusCode()).isEqualTo(400);
      assertThat(answer.headers().firstValue("Content-Type")).contains(KvorumApi.PROBLEM_JSON);
      JsonNode problem = JSON.readTree(answer.body());
      assertThat(problem.path("detail").asText()).matches(".*(KVR1|record [01]).*");
    }
    for (String key : List.of("never-1", "never-2", "never-3")) {
      for (int i = 1; i <= cluster.size(); i++) {
        assertThat(cluster.node(i).stored(key)).isEmpty();
      }
    }
  }

  @Test
  void otherMethodsAre405() {
    HttpResponse<byte[]> answer =
        cluster
            .node(1)
            .client()
            .send(HttpRequest.newBuilder(URI.create(cluster.node(1).url(KvorumApi.PATH_LOAD))));

    assertThat(answer.statusCode()).isEqualTo(405);
  }
}
