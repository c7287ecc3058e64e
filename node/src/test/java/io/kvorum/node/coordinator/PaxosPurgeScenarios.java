package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.Versioned;
import io.kvorum.node.testing.CasCounter;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.testing.TestWallClock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The purge of settled Paxos acceptor states (issue 26) on a cluster of three: the ballot floor
 * overtakes every round, the states go, and conditional writes on the same keys go on losing and
 * doubling nothing.
 */
@Timeout(180)
abstract class PaxosPurgeScenarios {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration SWEEPS = Duration.ofMillis(100);
  private static final int KEYS = 20;

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  /**
   * Keys are incremented by compare-and-set, one counter by three racing workers through every
   * node; midway the shared wall clock steps two hours ahead (past the one-hour grace), so every
   * round under way meets the floor and starts again above it. Once the last write of every key was
   * applied and the clock is past it too, every node's acceptor column family is empty; then the
   * same keys count on from where they were, through every node, and the racing counter lost and
   * doubled no increment.
   */
  @Test
  void settledStatesArePurgedAndTheKeysCountOn() throws Exception {
    TestWallClock wall = TestWallClock.shiftedBy(Duration.ZERO);
    try (TestCluster cluster =
        clusters()
            .start(
                3,
                c ->
                    c.requestTimeout(REQUEST_TIMEOUT)
                        .purging(Duration.ofDays(10), SWEEPS)
                        .paxosPurgeGrace(Duration.ofHours(1)),
                id -> wall)) {
      List<byte[]> keys = new ArrayList<>();
      for (int k = 0; k < KEYS; k++) {
        byte[] key = utf8("settled-" + k);
        keys.add(key);
        for (int i = 1; i <= 3; i++) {
          assertThat(CasCounter.increment(cluster.client(1 + (k + i) % 3), key)).isEqualTo(i);
        }
      }
      assertThat(states(cluster, 1)).hasSize(KEYS);

      byte[] counter = utf8("counter");
      long end;
      try (CasCounter.Increments increments =
          new CasCounter.Increments(counter, 3, 30, 3, i -> cluster.client(1 + i), i -> true)) {
        increments.awaitApplied(10);
        wall.shift(Duration.ofHours(2));
        increments.finish(Duration.ofSeconds(120));
        awaitWritesTaken(cluster);
        end = CasCounter.value(cluster.client(1).getVersioned(counter));
        increments.assertNoneLostOrDoubled(end);
      }
      // Its last round may have been a refusal, whose state stays until the key is written again.
      long[] settled = {CasCounter.NOT_APPLIED};
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> (settled[0] = CasCounter.increment(cluster.client(2), counter)) > end);
      keys.add(counter);

      wall.shift(Duration.ofHours(4));
      awaitWritesTaken(cluster);
      for (int node = 1; node <= 3; node++) {
        int n = node;
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(states(cluster, n)).as("node %d", n).isEmpty());
        assertThat(
                cluster.node(n).bootstrap().registry().get("kvorum.paxos.purged").counter().count())
            .as("node %d", n)
            .isGreaterThanOrEqualTo(KEYS + 1);
      }

      for (int k = 0; k < KEYS; k++) {
        KvorumClient client = cluster.client(1 + k % 3);
        Versioned before = client.getVersioned(keys.get(k)).orElseThrow();
        assertThat(CasCounter.value(Optional.of(before))).isEqualTo(3);
        ConditionalResult after = client.putIfMatch(keys.get(k), utf8("4"), before.etag());
        assertThat(after.applied())
            .as("key %d read at %s, refused at %s", k, before.etag(), after.etag())
            .isTrue();
      }
      try (CasCounter.Increments increments =
          new CasCounter.Increments(counter, 3, 15, 3, i -> cluster.client(1 + i), i -> true)) {
        increments.finish(Duration.ofSeconds(60));
        long after = CasCounter.value(cluster.client(3).getVersioned(counter));
        increments.assertNoneLostOrDoubled(settled[0], after);
      }
    }
  }

  /**
   * Until each node has measured its peers' clocks again: a node whose wall clock stepped takes its
   * peers for that far off, and refuses writes (503), until its next heartbeat shows they stepped
   * too.
   */
  private static void awaitWritesTaken(TestCluster cluster) {
    for (int node = 1; node <= 3; node++) {
      MeterRegistry registry = cluster.node(node).bootstrap().registry();
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> registry.get("kvorum.clock.offset.refusing").gauge().value() == 0);
    }
  }

  private static List<?> states(TestCluster cluster, int node) {
    return cluster.node(node).acceptors().keys(Optional.empty(), 1000).join();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
