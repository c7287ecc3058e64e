package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.Consistency;
import io.kvorum.node.testing.TestCluster;
import org.junit.jupiter.api.Test;

/**
 * {@code --replication-factor} (SPEC §1, §2): the default {@code from} is min(RF, N), so a larger
 * cluster keeps RF copies of a key, and a request may still ask for more, up to N.
 */
abstract class ReplicationFactorScenarios {
  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  private static int copies(TestCluster cluster, String key) {
    int copies = 0;
    for (int node = 1; node <= cluster.size(); node++) {
      copies += cluster.node(node).stored(key).isPresent() ? 1 : 0;
    }
    return copies;
  }

  @Test
  void fiveNodesWithReplicationFactorThreeKeepThreeCopiesUnlessARequestAsksForMore() {
    try (TestCluster cluster = clusters().start(5, c -> c.replicationFactor(3))) {
      for (int i = 0; i < 40; i++) {
        cluster.client(1 + i % 5).put("rf-" + i, "v" + i);
      }
      // The third copy of a 2/3 write may land just after the answer.
      org.awaitility.Awaitility.await()
          .untilAsserted(
              () -> {
                for (int i = 0; i < 40; i++) {
                  assertThat(copies(cluster, "rf-" + i)).as("copies of rf-%d", i).isEqualTo(3);
                }
              });
      for (int i = 0; i < 40; i++) {
        assertThat(cluster.client(1 + (i + 2) % 5).getUtf8("rf-" + i)).hasValue("v" + i);
      }
      for (int i = 0; i < 10; i++) {
        cluster
            .client(1 + i % 5)
            .put(("all-" + i).getBytes(UTF_8), "v".getBytes(UTF_8), Consistency.of(5, 5));
        assertThat(copies(cluster, "all-" + i)).isEqualTo(5);
      }
    }
  }

  @Test
  void clustersSmallerThanTheReplicationFactorKeepACopyOnEveryNode() {
    try (TestCluster cluster = clusters().start(2, c -> c.replicationFactor(3))) {
      for (int i = 0; i < 20; i++) {
        cluster.client(1 + i % 2).put("small-" + i, "v");
        String key = "small-" + i;
        // 2/2 by default: both copies are stored when the write is answered.
        assertThat(copies(cluster, key)).isEqualTo(2);
      }
    }
  }

  @Test
  void aDeleteWithASmallerFromSpreadsItsTombstoneToTheValuesOtherCopies() {
    try (TestCluster cluster = clusters().start(3, c -> c)) {
      byte[] key = "deleted-from-one".getBytes(UTF_8);
      cluster.client(1).put(key, "v".getBytes(UTF_8), Consistency.of(3, 3));
      cluster.client(2).delete(key, Consistency.of(1, 1));

      // The delete reached its one replica; the tombstone belongs on the default three, so the
      // value's other copies cannot come back once it is purged (a-tombstone-covers-the-default-
      // replicas.md). Anti-entropy carries it to them.
      org.awaitility.Awaitility.await()
          .untilAsserted(
              () -> {
                cluster.node(1).bootstrap().admin().repairNow();
                for (int node = 1; node <= 3; node++) {
                  assertThat(cluster.node(node).stored("deleted-from-one"))
                      .as("n%d", node)
                      .hasValueSatisfying(
                          r -> assertThat(r.tombstone() && r.replicas() == 3).isTrue());
                }
              });
    }
  }
}
