package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.BatchItem;
import io.kvorum.api.BatchItemResult;
import io.kvorum.api.Consistency;
import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v0/batch} on a cluster in one JVM (the in-memory network): each replica gets one
 * message per batch; each item is decided by its own quorum, as it alone would be, with one replica
 * down too (the writes it missed kept as hints and delivered when it returns); an item whose quorum
 * cannot be reached answers its own 504 naming the replica that is down while the others succeed.
 */
class BatchClusterTest {
  private static List<String> keys(String prefix, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }

  private static Map<String, byte[]> values(List<String> keys) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    keys.forEach(key -> values.put(key, ("v-" + key).getBytes(UTF_8)));
    return values;
  }

  /** Calls node {@code i} made to its peers' replicas with {@code operation}, all outcomes. */
  private static long calls(TestCluster cluster, int i, String operation) {
    return cluster
        .node(i)
        .bootstrap()
        .registry()
        .find("kvorum.replica.calls")
        .tag("operation", operation)
        .timers()
        .stream()
        .mapToLong(Timer::count)
        .sum();
  }

  /**
   * Node 1's calls of {@code operation}, once all it sent have ended: {@code expected}, no more.
   */
  private static void awaitCalls(TestCluster cluster, String operation, long expected) {
    Awaitility.await(operation + " calls of n1")
        .atMost(Duration.ofSeconds(10))
        .until(() -> calls(cluster, 1, operation) >= expected);
    assertThat(calls(cluster, 1, operation)).as(operation + " calls of n1").isEqualTo(expected);
  }

  @Test
  void eachReplicaGetsOneMessagePerBatch() {
    try (LocalCluster cluster = LocalCluster.start(3)) {
      List<String> keys = keys("one-message/", 100);
      List<BatchItemResult> written = cluster.client(1).putAll(values(keys));
      assertThat(written).extracting(BatchItemResult::status).containsOnly(201);
      // The coordinator answers at the second acknowledgement: the third replica's call may end
      // (and be counted) just after.
      awaitCalls(cluster, "batch", 2);
      assertThat(calls(cluster, 1, "write")).isZero();

      List<BatchItemResult> read = cluster.client(1).getAll(keys);
      awaitCalls(cluster, "batch", 4);
      assertThat(calls(cluster, 1, "read")).isZero();
      for (int i = 0; i < keys.size(); i++) {
        assertThat(read.get(i).key()).isEqualTo(keys.get(i));
        assertThat(read.get(i).status()).isEqualTo(200);
        assertThat(read.get(i).foundUtf8()).hasValue("v-" + keys.get(i));
        assertThat(read.get(i).etag()).isEqualTo(written.get(i).etag());
      }
      for (int node = 1; node <= 3; node++) {
        for (String key : keys) {
          assertThat(cluster.node(node).stored(key)).as("%s on n%d", key, node).isPresent();
        }
      }
    }
  }

  @Test
  void withOneReplicaDownEveryItemIsDecidedAndTheMissedWritesAreHintedUntilItReturns() {
    try (LocalCluster cluster = LocalCluster.start(3)) {
      List<String> keys = keys("one-down/", 100);
      // At all three replicas before n3 stops: at the default ack=2 the write to n3 could still be
      // in flight, and n1 then held a 101st hint for it (CI run 26).
      cluster
          .client(1)
          .put("one-down/gone".getBytes(UTF_8), "old".getBytes(UTF_8), Consistency.of(3, 3));
      cluster.stop(3);

      List<BatchItem> items = new ArrayList<>();
      keys.forEach(key -> items.add(BatchItem.put(key, ("v-" + key).getBytes(UTF_8))));
      items.set(99, BatchItem.delete("one-down/gone"));
      List<BatchItemResult> results = cluster.client(1).batch(items, Consistency.DEFAULT);
      assertThat(results.subList(0, 99)).extracting(BatchItemResult::status).containsOnly(201);
      assertThat(results.get(99).status()).isEqualTo(202);
      assertThat(results).allMatch(r -> r.etag() != null);

      List<BatchItemResult> read = cluster.client(2).getAll(keys);
      for (int i = 0; i < 99; i++) {
        assertThat(read.get(i).foundUtf8()).as(keys.get(i)).hasValue("v-" + keys.get(i));
      }
      assertThat(read.get(99).status()).isEqualTo(404);
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> cluster.node(1).hints().pending(cluster.id(3)) == 100);

      cluster.startNode(3);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                for (int i = 0; i < 99; i++) {
                  assertThat(cluster.node(3).stored(keys.get(i))).isPresent();
                }
                assertThat(cluster.node(3).stored("one-down/gone").orElseThrow().tombstone())
                    .isTrue();
              });
    }
  }

  @Test
  void anItemWhoseQuorumCannotBeReachedAnswersItsOwn504WhileTheOthersSucceed() {
    try (LocalCluster cluster =
        LocalCluster.start(3, c -> c.requestTimeout(Duration.ofMillis(300)))) {
      cluster.client(1).put("strict/read", "r");
      cluster.stop(3);
      List<BatchItem> items =
          List.of(
              BatchItem.put("strict/a", "a".getBytes(UTF_8)),
              BatchItem.get("strict/read"),
              BatchItem.get("strict/absent"));
      List<BatchItemResult> all = cluster.client(1).batch(items, Consistency.of(3, 3));
      assertThat(all).extracting(BatchItemResult::status).containsOnly(504);
      assertThat(all.get(0).failure().getMessage()).contains(cluster.id(3).value());

      List<BatchItemResult> mixed = cluster.client(1).batch(items, Consistency.of(2, 3));
      assertThat(mixed).extracting(BatchItemResult::status).containsExactly(201, 200, 404);
      assertThat(mixed).allMatch(BatchItemResult::succeeded);
    }
  }
}
