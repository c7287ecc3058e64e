package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.placement.RendezvousRanking;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Zone;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The placement-aware client computes each key's replicas as the nodes do: for random clusters (1
 * to 9 members, none to four zones, the unnamed one among them, a join, a decommission or a move
 * started), the replicas the client's {@link Routes} give, from the cluster view a node answers,
 * are the node's {@link Owners#readers} for every {@code from}, for thousands of keys. (In the
 * node's tests, in the client's package, to see both sides.)
 */
class RoutesAgreeWithOwnersTest {
  private static final URI ANSWERED_BY = URI.create("http://127.0.0.1:8080");
  private static final String[] NAMES = {"node-", "kvorum-", "n", "db.", "x_"};

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
  void theClientsReplicasAreTheNodes(int seed) {
    Random random = new Random(seed);
    ClusterState state = cluster(random);
    Owners owners = new Owners(state);
    int replicationFactor = 1 + random.nextInt(owners.size());
    Routes routes = Routes.of(view(state, replicationFactor), ANSWERED_BY, Map.of(), null);

    assertThat(routes).isNotNull();
    for (int k = 0; k < 2_000; k++) {
      byte[] key = key(random);
      for (int from = 1; from <= owners.size(); from++) {
        assertThat(routes.replicas(key, from))
            .as("key %s, from %d, in %s", new String(key, StandardCharsets.UTF_8), from, state)
            .isEqualTo(ids(owners.readers(Key.of(key), from)));
      }
      assertThat(routes.replicas(key, null))
          .isEqualTo(ids(owners.readers(Key.of(key), replicationFactor)));
    }
  }

  /** A cluster of random ids and zones, with a change started now and then. */
  private static ClusterState cluster(Random random) {
    int size = 1 + random.nextInt(9);
    int zones = random.nextInt(5);
    String prefix = NAMES[random.nextInt(NAMES.length)];
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      members.add(member(prefix + random.nextInt(1000) + "-" + i, zone(random, zones)));
    }
    ClusterState state = ClusterState.seed(members);
    return switch (random.nextInt(4)) {
      case 0 -> state.withJoining(member(prefix + "joiner", zone(random, zones)), 1);
      case 1 ->
          size < 2
              ? state
              : state.withLeaving(
                  members.get(random.nextInt(size)).id(), ClusterState.Kind.DECOMMISSION, 1);
      case 2 -> state.withMoving(members.get(0).id(), Zone.of("elsewhere"), 1);
      default -> state;
    };
  }

  private static Member member(String id, Zone zone) {
    return new Member(NodeId.of(id), "10.0.0.1", 9090, zone);
  }

  private static Zone zone(Random random, int zones) {
    return zones == 0
        ? Zone.NONE
        : Zone.of(random.nextInt(zones) == 0 ? "" : "z" + random.nextInt(zones));
  }

  /** {@code /v0/cluster} as a node answers it: each member's id, zone when named, state. */
  private static Map<String, Object> view(ClusterState state, int replicationFactor) {
    List<Object> nodes = new ArrayList<>();
    for (ClusterState.Node node : state.nodes()) {
      Map<String, Object> member = new LinkedHashMap<>();
      member.put("id", node.id().value());
      member.put("address", "10.0.0.1:9090");
      if (node.member().zone().named()) {
        member.put("zone", node.member().zone().name());
      }
      member.put("state", node.state() == MemberState.NORMAL ? "up" : node.state().label());
      nodes.add(member);
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("node", state.nodes().get(0).id().value());
    view.put(
        "placement",
        Map.of(
            "algorithm",
            RendezvousRanking.ALGORITHM,
            "defaultFrom",
            Math.min(replicationFactor, state.owners().size())));
    view.put("nodes", nodes);
    return view;
  }

  private static byte[] key(Random random) {
    byte[] key = new byte[1 + random.nextInt(24)];
    random.nextBytes(key);
    return key;
  }

  private static List<String> ids(List<NodeId> nodes) {
    return nodes.stream().map(NodeId::value).toList();
  }
}
