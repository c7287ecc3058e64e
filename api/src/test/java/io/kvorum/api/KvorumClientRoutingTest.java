package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kvorum.api.placement.RendezvousRanking;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's routing against three stand-in nodes that answer {@code /v0/cluster} as a node does
 * and count the requests for each key: each request reaches its key's first replica; when that
 * replica answers 503, the call goes on to another replica, not to it again; with routing off, or
 * against nodes that state no placement, requests go round the nodes whatever the key.
 */
@Timeout(30)
class KvorumClientRoutingTest {
  private static final List<String> IDS = List.of("n0", "n1", "n2");
  private final List<HttpServer> servers = new ArrayList<>();
  // Per node id, the keys of the entity requests it received, in order.
  private final Map<String, List<String>> received = new ConcurrentHashMap<>();
  private final Map<String, Integer> refusing = new ConcurrentHashMap<>();
  private boolean statePlacement = true;

  @BeforeEach
  void start() throws IOException {
    for (String id : IDS) {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      received.put(id, new CopyOnWriteArrayList<>());
      server.createContext(
          "/",
          exchange -> {
            exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            byte[] body = new byte[0];
            int status;
            if (path.equals(KvorumApi.PATH_CLUSTER)) {
              status = 200;
              body = Json.text(view(id)).getBytes(UTF_8);
            } else {
              String query = exchange.getRequestURI().getQuery();
              received
                  .get(id)
                  .add(
                      query.substring(
                          3, query.indexOf('&') > 0 ? query.indexOf('&') : query.length()));
              status = refusing.getOrDefault(id, 0) > 0 ? 503 : 201;
              exchange.getResponseHeaders().add("ETag", "\"1\"");
            }
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
          });
      server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      server.start();
      servers.add(server);
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(server -> server.stop(0));
  }

  private Map<String, Object> view(String self) {
    List<Object> nodes = new ArrayList<>();
    for (String id : IDS) {
      nodes.add(Map.of("id", id, "address", "127.0.0.1:9", "state", "up", "self", id.equals(self)));
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("node", self);
    if (statePlacement) {
      view.put("placement", Map.of("algorithm", RendezvousRanking.ALGORITHM, "defaultFrom", 2));
    }
    view.put("nodes", nodes);
    return view;
  }

  private KvorumClientBuilder client() {
    KvorumClientBuilder builder =
        KvorumClient.builder().backOff(Duration.ofMillis(5), Duration.ofMillis(20));
    for (HttpServer server : servers) {
      builder.seed("127.0.0.1", server.getAddress().getPort());
    }
    return builder;
  }

  /**
   * The client learns the placement in the background, from its first call on, and which node
   * answers at which seed from each seed's own answer: routing is on from the first answer, and
   * until every seed's has arrived a key whose first replica is not known yet goes to its next
   * replica (CI saw every key of one node land on another). So this waits until, with routing on
   * before they are sent, a key of each node reaches that node.
   */
  private void awaitRouting(KvorumClient kv) throws InterruptedException {
    Map<String, String> probes = new LinkedHashMap<>();
    for (int i = 0; probes.size() < IDS.size(); i++) {
      probes.putIfAbsent(first("probe-" + i), "probe-" + i);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      forget();
      // Routing on before the probes are sent: sent round the nodes, they could each land on
      // their own node by chance (CI run 59).
      boolean routed = kv.routing();
      probes.values().forEach(key -> kv.put(key, "v"));
      if (routed
          && probes.entrySet().stream()
              .allMatch(probe -> received.get(probe.getKey()).contains(probe.getValue()))) {
        return;
      }
      assertThat(System.nanoTime()).as("routing to every node within 10 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private void forget() {
    received.values().forEach(List::clear);
  }

  private static String first(String key) {
    return RendezvousRanking.of(IDS).replicaIds(key.getBytes(UTF_8), 2).get(0);
  }

  @Test
  void eachRequestReachesItsKeysFirstReplica() throws InterruptedException {
    try (KvorumClient kv = client().build()) {
      awaitRouting(kv);
      forget();
      for (int i = 0; i < 60; i++) {
        kv.put("key-" + i, "v");
      }
      for (String id : IDS) {
        assertThat(received.get(id)).allSatisfy(key -> assertThat(first(key)).isEqualTo(id));
      }
      assertThat(received.values().stream().mapToInt(List::size).sum()).isEqualTo(60);
    }
  }

  @Test
  void aReplicaAnswering503IsFollowedByAnotherReplica() throws InterruptedException {
    try (KvorumClient kv = client().build()) {
      awaitRouting(kv);
      refusing.put("n0", 1);
      forget();
      RendezvousRanking ranking = RendezvousRanking.of(IDS);
      List<String> keys = new ArrayList<>();
      for (int i = 0; keys.size() < 10; i++) {
        if (first("key-" + i).equals("n0")) {
          keys.add("key-" + i);
        }
      }
      for (String key : keys) {
        kv.put(key, "v");
        String second = ranking.replicaIds(key.getBytes(UTF_8), 2).get(1);
        assertThat(received.get(second)).as(key).contains(key);
      }
      assertThat(received.get("n0").size()).isLessThanOrEqualTo(keys.size());
    }
  }

  @Test
  void withRoutingOffOrNoPlacementStatedRequestsGoRoundTheNodes() {
    statePlacement = false;
    try (KvorumClient unstated = client().build();
        KvorumClient off = client().routing(false).build()) {
      for (KvorumClient kv : List.of(unstated, off)) {
        kv.put("warm-up", "v");
        forget();
        for (int i = 0; i < 30; i++) {
          kv.put("same-key", "v");
        }
        assertThat(kv.routing()).isFalse();
        for (String id : IDS) {
          assertThat(received.get(id)).as(id).hasSize(10);
        }
      }
    }
  }
}
