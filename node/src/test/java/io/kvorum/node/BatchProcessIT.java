package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.BatchItemResult;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.ProcessCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v0/batch} on three node processes (SPEC §2): with one node SIGKILLed, a batch of 100
 * puts and one of 100 gets through every node still up answers every item, a batch that needs the
 * dead replica answers each item's own 504 naming it; once the node is back, a batch through it
 * reads every key from all three replicas (the hints delivered, nothing lost); a batch of 101 items
 * is 413 and one naming a key twice 400, nothing of either written.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BatchProcessIT {
  @TempDir Path work;

  private static Map<String, byte[]> values(String prefix) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      values.put(prefix + i, (prefix + "value-" + i).getBytes(UTF_8));
    }
    return values;
  }

  @Test
  void batchesThroughEveryNodeWithOneReplicaDownLoseNothing() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      cluster.node(2).kill();
      Map<String, byte[]> all = new LinkedHashMap<>();
      for (int via = 0; via < 2; via++) {
        Map<String, byte[]> values = values("via" + via + "/");
        all.putAll(values);
        try (KvorumClient kv = cluster.client(via);
            KvorumClient other = cluster.client(1 - via)) {
          List<BatchItemResult> written = kv.putAll(values);
          assertThat(written).extracting(BatchItemResult::status).containsOnly(201);
          List<String> keys = new ArrayList<>(values.keySet());
          List<BatchItemResult> read = other.getAll(keys);
          for (int i = 0; i < keys.size(); i++) {
            assertThat(read.get(i).status()).as(keys.get(i)).isEqualTo(200);
            assertThat(read.get(i).value()).isEqualTo(values.get(keys.get(i)));
            assertThat(read.get(i).etag()).isEqualTo(written.get(i).etag());
          }
          List<BatchItemResult> strict = kv.getAll(keys, Consistency.of(3, 3));
          assertThat(strict).extracting(BatchItemResult::status).containsOnly(504);
          assertThat(strict.get(0).failure().getMessage()).contains("node-2");
        }
      }

      cluster.restart(2);
      try (KvorumClient kv = cluster.client(2)) {
        List<String> keys = new ArrayList<>(all.keySet());
        for (int from = 0; from < keys.size(); from += 100) {
          List<String> page = keys.subList(from, from + 100);
          List<BatchItemResult> read = kv.getAll(page, Consistency.of(3, 3));
          for (int i = 0; i < page.size(); i++) {
            assertThat(read.get(i).status()).as(page.get(i)).isEqualTo(200);
            assertThat(read.get(i).value()).isEqualTo(all.get(page.get(i)));
          }
        }
        assertThat(kv.deleteAll(keys.subList(0, 100)))
            .extracting(BatchItemResult::status)
            .containsOnly(202);
        assertThat(kv.getAll(keys.subList(0, 100)))
            .extracting(BatchItemResult::status)
            .containsOnly(404);
      }
    }
  }

  @Test
  void overTheLimitIs413AndAKeyTwice400NothingWritten() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start();
        KvorumClient kv = cluster.client(0)) {
      StringBuilder many = new StringBuilder("{\"items\": [");
      for (int i = 0; i < 101; i++) {
        many.append(i == 0 ? "" : ",")
            .append("{\"op\": \"put\", \"id\": \"many/")
            .append(i)
            .append("\", \"value\": \"\"}");
      }
      assertThat(post(kv, many.append("]}").toString()).statusCode()).isEqualTo(413);
      String twice =
          "{\"items\": [{\"op\": \"put\", \"id\": \"twice\", \"value\": \"\"},"
              + " {\"op\": \"get\", \"id\": \"twice\"}]}";
      HttpResponse<byte[]> refused = post(kv, twice);
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(new String(refused.body(), UTF_8)).contains("items[1].id");
      assertThat(kv.getAll(List.of("many/0", "many/100", "twice")))
          .extracting(BatchItemResult::status)
          .containsOnly(404);
    }
  }

  private static HttpResponse<byte[]> post(KvorumClient kv, String body) {
    return kv.send(
        HttpRequest.newBuilder(URI.create(kv.baseUri() + "/v0/batch"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }
}
