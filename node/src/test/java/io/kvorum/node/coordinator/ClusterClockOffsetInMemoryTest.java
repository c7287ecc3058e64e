package io.kvorum.node.coordinator;

import static io.kvorum.node.coordinator.ClusterClockOffsetScenarios.HOUR;
import static io.kvorum.node.coordinator.ClusterClockOffsetScenarios.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.transport.PeerCalls;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterClockOffsetScenarios} on the in-memory network, and one scenario only it can run: a
 * writer made by hand, with its own clock an hour ahead, connected to the network beside the nodes
 * (the gRPC binding's edge refusing such a version is {@code PeerTransportContract}'s to show).
 */
class ClusterClockOffsetInMemoryTest extends ClusterClockOffsetScenarios {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }

  @Test
  void aReplicaRefusesAVersionFurtherAheadOfItsClockThanTheMaxOffset() {
    try (LocalCluster cluster = LocalCluster.start(3)) {
      // A writer whose clock is an hour ahead and that has not noticed: nothing stops it but the
      // replica.
      HybridLogicalClock ahead =
          HybridLogicalClock.start(
              new MemoryCeilingStore(),
              () -> System.currentTimeMillis() + HOUR,
              Duration.ofSeconds(1),
              Duration.ofHours(2));
      PeerCalls writer =
          new PeerCalls(
              cluster.network().connect(NodeId.of("n1"), ahead, Duration.ofSeconds(10), WAIT),
              NodeId.of("n1"));
      try {
        Throwable refused =
            Futures.failure(
                writer.write(cluster.id(2), Key.utf8("k"), Record.value(ahead.now(), utf8("A"))),
                WAIT);

        assertThat(refused)
            .isInstanceOfSatisfying(
                ClockOffsetException.class,
                e -> {
                  assertThat(e.offsetMillis()).isBetween(HOUR - 10_000, HOUR);
                  assertThat(e.maxOffsetMillis()).isEqualTo(500);
                });
        assertThat(cluster.node(2).stored("k")).isEmpty();

        Record within = Record.value(Version.of(System.currentTimeMillis() + 200, 0), utf8("B"));
        Futures.await(writer.write(cluster.id(2), Key.utf8("k"), within), WAIT);
        assertThat(cluster.node(2).stored("k")).as("within the bound").hasValue(within);
      } finally {
        writer.close();
      }
    }
  }
}
