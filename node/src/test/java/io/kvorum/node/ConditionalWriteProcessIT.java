package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.CasCounter;
import io.kvorum.node.testing.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional writes (SPEC §10) through the HTTP API of three node processes: a counter incremented
 * by compare-and-set through every node while one is SIGKILLed and restarted, then writes with one
 * replica down (decided) and with two down (504, never a wrong 201 or 412).
 */
class ConditionalWriteProcessIT {
  private static final int INCREMENTS = 45;

  @TempDir Path work;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aCounterSurvivesASigkillAndAMajorityDecides() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3, "--request-timeout", "2s").start()) {
      List<KvorumClient> clients = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        clients.add(cluster.client(i));
      }
      byte[] counter = "counter".getBytes(UTF_8);
      try (CasCounter.Increments increments =
          new CasCounter.Increments(
              counter, 3, INCREMENTS, 3, clients::get, node -> cluster.node(node).isAlive())) {
        increments.awaitApplied(INCREMENTS / 3);
        cluster.node(2).kill();
        increments.awaitApplied(2 * INCREMENTS / 3);
        cluster.restart(2);
        increments.finish(Duration.ofMinutes(2));
        increments.assertNoneLostOrDoubled(CasCounter.value(clients.get(2).getVersioned(counter)));
      }

      // One of three down: a majority decides.
      cluster.node(2).kill();
      KvorumClient kv = clients.get(0);
      byte[] name = "unique-name".getBytes(UTF_8);
      ConditionalResult created = kv.putIfAbsent(name, "one".getBytes(UTF_8));
      assertThat(created.applied()).isTrue();
      assertThat(kv.putIfAbsent(name, "again".getBytes(UTF_8)).applied()).isFalse();
      String etag = created.etag().orElseThrow();
      assertThat(kv.putIfMatch(name, "two".getBytes(UTF_8), etag).applied()).isTrue();

      // Two of three down: no quorum, 504 whatever the condition.
      cluster.node(1).kill();
      assertThat(CasCounter.status(() -> kv.putIfMatch(name, "three".getBytes(UTF_8), etag)))
          .isEqualTo(504);
      assertThat(
              CasCounter.status(() -> kv.putIfAbsent("fresh".getBytes(UTF_8), "x".getBytes(UTF_8))))
          .isEqualTo(504);
      assertThat(CasCounter.status(() -> kv.deleteIfMatch(name, etag))).isEqualTo(504);
      for (KvorumClient client : clients) {
        client.close();
      }
    }
  }
}
