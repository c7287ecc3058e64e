package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.RangeReader;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestCluster;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Ranges over the whole cluster, and the cluster as one node sees it. */
abstract class ClusterRangeAndViewScenarios {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LOSE_AFTER = 100;

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  @Test
  void aRangeMergesEveryNodesKeysInOrderWithoutDuplicatesOrDeletedKeys() {
    try (TestCluster cluster = clusters().start(3)) {
      TreeMap<String, String> expected = new TreeMap<>();
      for (int i = 0; i < 300; i++) {
        String key = String.format("r/%03d", i);
        int from = 1 + i % 3; // one, two or three copies, spread over different nodes
        cluster.client(1 + i % 3).put(utf8(key), utf8("v" + i), Consistency.of(1, from));
        expected.put(key, "v" + i);
      }
      for (int i = 0; i < 300; i += 7) {
        String key = String.format("r/%03d", i);
        cluster.client(2).delete(utf8(key), Consistency.of(3, 3));
        expected.remove(key);
      }
      cluster.client(3).put("r/042", "overwritten");
      expected.put("r/042", "overwritten");

      for (int node = 1; node <= 3; node++) {
        List<RangeEntry> entries = cluster.client(node).rangeAll(utf8("r/"), utf8("r0"));
        assertThat(entries)
            .extracting(RangeEntry::keyUtf8, RangeEntry::valueUtf8)
            .as("range through n%d", node)
            .containsExactlyElementsOf(
                expected.entrySet().stream()
                    .map(e -> org.assertj.core.groups.Tuple.tuple(e.getKey(), e.getValue()))
                    .toList());
      }
    }
  }

  @Test
  void aRangeLeavesOutANodeThatIsDownWhenItStarts() {
    try (TestCluster cluster = clusters().start(3)) {
      for (int i = 0; i < 30; i++) {
        cluster.client(1).put(String.format("everywhere/%02d", i), "v"); // from = 3
      }
      cluster.stop(3);
      assertThat(cluster.client(1).rangeAll(utf8("everywhere/"), utf8("everywhere0"))).hasSize(30);
    }
  }

  @Test
  void aRangeCarriesOnFromTheOthersWhenANodeFailsMidway() {
    try (TestCluster cluster = slowCluster()) {
      List<String> keys = write(cluster, 3000, 3);

      Streamed range = rangeLosing(cluster, 3);

      assertThat(range.complete()).as("final chunk present").isTrue();
      assertThat(range.keys()).as("every key once, in order").containsExactlyElementsOf(keys);
    }
  }

  @Test
  void aRangeOfKeysOnEveryNodeCarriesOnWithOneNodeLeft() {
    try (TestCluster cluster = slowCluster()) {
      List<String> keys = write(cluster, 3000, 3);

      Streamed range = rangeLosing(cluster, 2, 3);

      assertThat(range.complete()).as("final chunk present").isTrue();
      assertThat(range.keys()).containsExactlyElementsOf(keys);
    }
  }

  @Test
  void aRangeIsCutOffOnceTheNodesLeftMayNotHoldEveryKey() {
    try (TestCluster cluster = slowCluster()) {
      List<String> keys = write(cluster, 3000, 2);

      Streamed oneLost = rangeLosing(cluster, 3);
      assertThat(oneLost.complete()).as("two copies of each key, one node lost").isTrue();
      assertThat(oneLost.keys()).containsExactlyElementsOf(keys);
      cluster.heal();

      Streamed twoLost = rangeLosing(cluster, 2, 3);
      assertThat(twoLost.complete()).as("two copies of each key, two nodes lost").isFalse();
      assertCutOffSaysWhy(twoLost);
      assertThat(twoLost.keys())
          .as("what came before the cut is in order, without repeats")
          .hasSizeGreaterThanOrEqualTo(LOSE_AFTER)
          .hasSizeLessThan(keys.size())
          .isSubsetOf(keys)
          .isSorted()
          .doesNotHaveDuplicates();
    }
  }

  @Test
  void aRangeOfSingleCopyKeysIsCutOffWhenANodeFailsMidway() {
    try (TestCluster cluster = slowCluster()) {
      List<String> keys = write(cluster, 3000, 1);

      Streamed range = rangeLosing(cluster, 3);

      assertThat(range.complete()).as("final chunk present").isFalse();
      assertCutOffSaysWhy(range);
      assertThat(range.keys()).hasSizeLessThan(keys.size());
    }
  }

  @Test
  void aRangeOfSingleCopyKeysWithANodeDownIs504NamingIt() throws Exception {
    try (TestCluster cluster = clusters().start(3)) {
      write(cluster, 30, 1);
      cluster.stop(3);
      try (RawHttpConnection raw = new RawHttpConnection(cluster.node(1).address())) {
        RawHttpConnection.Response response = raw.request("GET", "/v0/entities?start=cut/");
        assertThat(response.status()).isEqualTo(504);
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.path("failed").path("n3").asText()).startsWith("not available");
      }
    }
  }

  private TestCluster slowCluster() {
    return clusters().start(3, c -> c.requestTimeout(Duration.ofMillis(300)));
  }

  /**
   * Writes {@code count} keys {@code cut/0000}… with {@code from} copies; returns them sorted once
   * every key has its {@code from} copies. The slow cluster's 300 ms request timeout is there for
   * the ranges; a replica of this setup answering later than that (a GC pause or a compile on a
   * busy machine) makes its write a 504, but it applied the write all the same: such a key is not
   * written again, its copies are waited for.
   */
  private static List<String> write(TestCluster cluster, int count, int from) {
    byte[] value = new byte[512];
    List<String> keys = new ArrayList<>();
    List<String> answeredLate = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String key = String.format("cut/%04d", i);
      try {
        cluster.client(1 + i % 3).put(utf8(key), value, Consistency.of(from, from));
      } catch (KvorumClientException.NotEnoughReplicas e) {
        answeredLate.add(key);
      }
      keys.add(key);
    }
    if (!answeredLate.isEmpty()) {
      System.out.printf(
          "%d writes of the setup answered 504; waiting for their copies%n", answeredLate.size());
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> answeredLate.stream().allMatch(key -> copies(cluster, key) == from));
    }
    return keys;
  }

  private static int copies(TestCluster cluster, String key) {
    int copies = 0;
    for (int node = 1; node <= cluster.size(); node++) {
      copies += cluster.node(node).stored(key).isPresent() ? 1 : 0;
    }
    return copies;
  }

  /**
   * What a client read of a range: the keys, whether its end line came, and what the reader threw
   * when it did not (null if nothing).
   */
  private record Streamed(List<String> keys, boolean complete, RuntimeException cutOff) {}

  /**
   * The reader threw at the cut: the node's reason (its last line) as a 504, or, when the
   * connection ended before that line was read, an I/O error; never a clean end.
   */
  private static void assertCutOffSaysWhy(Streamed range) {
    assertThat(range.cutOff()).as("what the reader threw at the cut").isNotNull();
    if (range.cutOff() instanceof KvorumClientException reason) {
      assertThat(reason).isInstanceOf(KvorumClientException.NotEnoughReplicas.class);
      assertThat(reason.detail()).startsWith("range cut off: ");
    } else {
      assertThat(range.cutOff()).isInstanceOf(UncheckedIOException.class);
    }
  }

  /**
   * A full range through n1 during which {@code lost} drop off the network once the client has read
   * {@value #LOSE_AFTER} entries; their batches come slowly, so the range is still streaming then.
   */
  private static Streamed rangeLosing(TestCluster cluster, Integer... lost) {
    for (int node : lost) {
      cluster.delay(1, node, Duration.ofMillis(40));
    }
    List<String> keys = new ArrayList<>();
    RuntimeException cutOff = null;
    try (RangeReader range = cluster.client(1).range(utf8("cut/"), utf8("cut0"))) {
      try {
        while (range.hasNext()) {
          keys.add(range.next().keyUtf8());
          if (keys.size() == LOSE_AFTER) {
            for (int node : lost) {
              cluster.isolate(node);
            }
          }
        }
      } catch (KvorumClientException | UncheckedIOException e) {
        // the node's reason, or the response ended without its end line: complete() says so
        cutOff = e;
      }
      return new Streamed(keys, range.complete(), cutOff);
    }
  }

  @Test
  void theClusterViewShowsADownNodeAndTheHintsHeldForIt() throws Exception {
    try (TestCluster cluster = clusters().start(3)) {
      cluster.stop(2);
      for (int i = 0; i < 5; i++) {
        cluster.client(1).put("view" + i, "v");
      }
      // A hint is stored after the write it stands for has its quorum: wait for the last one.
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode view = clusterView(cluster.client(1));
                assertThat(view.path("node").asText()).isEqualTo("n1");
                assertThat(view.path("ready").asBoolean()).isTrue();
                assertThat(viewLines(view))
                    .containsExactly(
                        "n1 up self=true hints=0",
                        "n2 down self=false hints=5",
                        "n3 up self=false hints=0");
              });

      cluster.startNode(2);
      assertThat(clusterView(cluster.client(1)).path("nodes").get(1).path("hintsPending").asLong())
          .isZero();
      assertThat(clusterView(cluster.client(1)).path("nodes").get(1).path("state").asText())
          .isEqualTo("up");
    }
  }

  private static List<String> viewLines(JsonNode view) {
    List<String> lines = new ArrayList<>();
    for (JsonNode node : view.path("nodes")) {
      lines.add(
          node.path("id").asText()
              + " "
              + node.path("state").asText()
              + " self="
              + node.path("self").asBoolean()
              + " hints="
              + node.path("hintsPending").asLong());
    }
    return lines;
  }

  private static JsonNode clusterView(KvorumClient client) throws Exception {
    byte[] body =
        client
            .send(HttpRequest.newBuilder(URI.create(client.baseUri() + "/v0/cluster")).GET())
            .body();
    return JSON.readTree(body);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
