package io.kvorum.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.topology.RendezvousPlacement;
import io.kvorum.node.topology.Zone;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Zones (SPEC §3) on real nodes started with {@code --zone}: a key's replicas in distinct zones,
 * and zones introduced into a running cluster as membership changes (SPEC §8) under a quorum load,
 * losing no acknowledged write. A whole zone lost without losing quorum is the simulator's ({@code
 * Scenario.ZONES}: every read and write checked, zones lost again and again) and, with processes,
 * {@code ZoneProcessIT}'s.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class ZoneScenarios {
  private static final int KEYS = 300;

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  /**
   * Membership changes move on at gossip ticks: these scenarios run them at a fifth of a second's,
   * not the node's own second's, and so wait a fifth as long for each step (the steps and their
   * order stay the same).
   */
  private static final Duration GOSSIP_INTERVAL = Duration.ofMillis(200);

  private TestCluster.Factory gossipingFast() {
    return clusters().with(c -> c.gossipInterval(GOSSIP_INTERVAL));
  }

  /**
   * Starts nodes n1.. in the zones given, one per node. Each node's move into its zone is a
   * membership change, and the changes run one after another before the cluster is ready; no
   * request runs meanwhile, so their drivers need not wait for any to end: a short settle time.
   */
  private TestCluster start(String... zones) {
    return gossipingFast()
        .start(
            zones.length,
            c -> c.zone(zones[number(c.nodeId()) - 1]).settleTime(Duration.ofMillis(100)));
  }

  private static int number(NodeId id) {
    return Integer.parseInt(id.value().substring(1));
  }

  /** Where each key's copies are, read from every running node's own storage. */
  private static Map<String, Set<String>> zonesHolding(
      TestCluster cluster, List<String> keys, String... zones) {
    Map<String, Set<String>> held = new HashMap<>();
    for (String key : keys) {
      Set<String> in = new HashSet<>();
      for (int i = 1; i <= cluster.size(); i++) {
        if (cluster.node(i).running() && cluster.node(i).stored(key).isPresent()) {
          in.add(zones[i - 1]);
        }
      }
      held.put(key, in);
    }
    return held;
  }

  private static List<String> write(TestCluster cluster, int via, String prefix) {
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      cluster.client(via).put(prefix + i, "v" + i);
      keys.add(prefix + i);
    }
    return keys;
  }

  private static JsonNode clusterView(TestCluster cluster, int node) throws Exception {
    return MembershipChangeScenarios.clusterView(cluster, node);
  }

  @Test
  void fourNodesInTwoZonesGiveEveryKeyAReplicaInEachZone() {
    String[] zones = {"a", "b", "a", "b"};
    try (TestCluster cluster = start(zones)) {
      List<String> keys = write(cluster, 2, "k");
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(zonesHolding(cluster, keys, zones))
                      .allSatisfy((key, in) -> assertThat(in).as(key).containsOnly("a", "b")));
    }
  }

  @Test
  void zonesIntroducedIntoARunningClusterUnderLoadLoseNoAcknowledgedWrite() throws Exception {
    // Two copies a key, so that zones move records: n1 and n2 in a, n3 alone in b holds them all.
    String[] zones = {"a", "a", "b"};
    try (TestCluster cluster = gossipingFast().start(3, c -> c.replicationFactor(2))) {
      List<String> preloaded = write(cluster, 1, "pre-");
      AtomicInteger restarting = new AtomicInteger();
      try (MembershipLoad load =
          new MembershipLoad(cluster, 3, 40, () -> anyBut(restarting.get(), 3))) {
        Awaitility.await().until(() -> load.writes() > 100);
        for (int n = 1; n <= 3; n++) {
          restarting.set(n);
          cluster.stop(n);
          cluster.node(n).launchInZone(zones[n - 1]);
          assertThat(cluster.node(n).ready()).succeedsWithin(Duration.ofSeconds(60));
          restarting.set(0);
          long before = load.writes();
          Awaitility.await().until(() -> load.writes() > before + 50);
        }
        load.close();
        for (int node = 1; node <= 3; node++) {
          load.assertNothingLost(node);
        }
        for (int i = 0; i < KEYS; i++) {
          assertThat(cluster.client(2).getUtf8("pre-" + i)).hasValue("v" + i);
        }
        Map<NodeId, Zone> placed = new LinkedHashMap<>();
        for (int n = 1; n <= 3; n++) {
          placed.put(cluster.id(n), Zone.of(zones[n - 1]));
        }
        Set<String> keys = new HashSet<>(load.keys());
        keys.addAll(preloaded);
        RendezvousPlacement placement = RendezvousPlacement.zoned(placed);
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(MembershipLoad.misplaced(cluster, keys, placement, 2)).isEmpty());
        for (String key : preloaded) {
          assertThat(cluster.node(3).stored(key)).as(key).isPresent();
        }
      }
      for (int node = 1; node <= 3; node++) {
        JsonNode view = clusterView(cluster, node);
        assertThat(view.path("change").isMissingNode()).isTrue();
        assertThat(view.path("nodes").findValuesAsText("zone")).containsExactly("a", "a", "b");
      }
    }
  }

  /** A node of 1..size other than {@code but}, at random. */
  private static int anyBut(int but, int size) {
    while (true) {
      int n = 1 + ThreadLocalRandom.current().nextInt(size);
      if (n != but) {
        return n;
      }
    }
  }
}
