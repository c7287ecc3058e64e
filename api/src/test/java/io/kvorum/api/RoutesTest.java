package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.placement.RendezvousRanking;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where the placement-aware client sends a key's request, from a cluster view: to a replica, one in
 * its own zone first, one that is up and not marked down, each reached at the address it advertises
 * or where it answered; nowhere in particular when the view states no placement this client
 * computes.
 */
class RoutesTest {
  private static final URI SEED = URI.create("http://10.0.0.1:8080");
  private static final Map<String, URI> ANSWERED =
      Map.of(
          "a1", URI.create("http://10.0.0.1:8080"),
          "a2", URI.create("http://10.0.0.2:8080"),
          "b1", URI.create("http://10.0.0.3:8080"),
          "b2", URI.create("http://10.0.0.4:8080"));

  /** Four nodes, two in zone a and two in zone b, each {@code id=state}. */
  private static Map<String, Object> view(String algorithm, int defaultFrom, String... states) {
    List<Object> nodes = new ArrayList<>();
    for (String node : states) {
      String[] idState = node.split("=");
      Map<String, Object> member = new LinkedHashMap<>();
      member.put("id", idState[0]);
      member.put("address", "10.9.9.9:9090");
      member.put("zone", idState[0].substring(0, 1));
      member.put("state", idState[1]);
      nodes.add(member);
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("node", "a1");
    if (algorithm != null) {
      view.put("placement", Map.of("algorithm", algorithm, "defaultFrom", defaultFrom));
    }
    view.put("nodes", nodes);
    return view;
  }

  private static Map<String, Object> fourUp() {
    return view(RendezvousRanking.ALGORITHM, 2, "a1=up", "a2=up", "b1=up", "b2=up");
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aRequestGoesToAReplicaInTheClientsZone() {
    Routes inB = Routes.of(fourUp(), SEED, ANSWERED, "b");
    Routes anywhere = Routes.of(fourUp(), SEED, ANSWERED, null);
    for (int i = 0; i < 500; i++) {
      List<String> replicas = inB.replicas(key(i), null);
      String inZone = replicas.stream().filter(id -> id.startsWith("b")).findFirst().orElseThrow();
      assertThat(inB.route(key(i), null, uri -> true)).isEqualTo(ANSWERED.get(inZone));
      assertThat(anywhere.route(key(i), null, uri -> true))
          .isEqualTo(ANSWERED.get(replicas.get(0)));
    }
  }

  @Test
  void aReplicaDownOrMarkedDownIsPassedOverForTheNextOneUp() {
    Routes routes =
        Routes.of(
            view(RendezvousRanking.ALGORITHM, 2, "a1=down", "a2=up", "b1=up", "b2=up"),
            SEED,
            ANSWERED,
            "a");
    URI markedDown = ANSWERED.get("b1");
    for (int i = 0; i < 500; i++) {
      List<String> replicas = routes.replicas(key(i), null);
      URI routed = routes.route(key(i), null, uri -> !uri.equals(markedDown));
      List<String> usable =
          replicas.stream().filter(id -> !id.equals("a1") && !id.equals("b1")).toList();
      if (usable.isEmpty()) {
        assertThat(routed).as("no replica usable: any node").isNull();
      } else {
        String expected = usable.contains("a2") ? "a2" : usable.get(0);
        assertThat(routed).isEqualTo(ANSWERED.get(expected));
      }
    }
  }

  @Test
  void aJoiningMemberIsNoReplicaYet() {
    Routes routes =
        Routes.of(
            view(RendezvousRanking.ALGORITHM, 3, "a1=up", "a2=joining", "b1=leaving", "b2=up"),
            SEED,
            ANSWERED,
            null);
    for (int i = 0; i < 200; i++) {
      assertThat(routes.replicas(key(i), null)).containsExactlyInAnyOrder("a1", "b1", "b2");
    }
  }

  @Test
  void aNodeOfAnotherPlacementOrOfNoneIsNotRoutedTo() {
    assertThat(
            Routes.of(view("rendezvous-xxh3-363-zone-rounds/2", 2, "a1=up"), SEED, ANSWERED, null))
        .isNull();
    assertThat(Routes.of(view(null, 2, "a1=up"), SEED, ANSWERED, null)).isNull();
  }

  @Test
  void membersAreReachedAtTheirAdvertisedAddressElseWhereTheyAnswered() {
    Map<String, Object> view = fourUp();
    @SuppressWarnings("unchecked")
    Map<String, Object> b2 = (Map<String, Object>) ((List<Object>) view.get("nodes")).get(3);
    b2.put("httpAddress", "kv-b2.example:8443");
    Routes routes = Routes.of(view, SEED, Map.of("a1", SEED), null);
    Set<URI> reached = new java.util.HashSet<>();
    for (int i = 0; i < 500; i++) {
      URI routed = routes.route(key(i), 1, uri -> true);
      reached.add(routed);
    }
    // a1 where it answered; b2 where it advertises; a2 and b1 at their inter-node host (all the
    // same here) and the seed's port, except where another id answered: a1's seed address.
    assertThat(reached)
        .containsExactlyInAnyOrder(
            SEED, URI.create("http://kv-b2.example:8443"), URI.create("http://10.9.9.9:8080"));
  }
}
