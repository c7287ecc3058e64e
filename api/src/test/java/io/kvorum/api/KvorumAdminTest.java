package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link KvorumAdmin} against a stand-in node that answers the operator's endpoints as SPEC §7, §8
 * and §11 and the OpenAPI document say: each answer read into its record (the cluster view as its
 * document), each refusal the {@link KvorumClientException} of its status, every request to the
 * first seed alone with the token, and a request that starts something never sent twice.
 */
@Timeout(30)
class KvorumAdminTest {
  private static final String VIEW =
      """
      {"node":"n1","version":"0.2.0","epoch":7,"ready":true,
       "change":{"kind":"move","node":"n2","zone":"eu-1b","epoch":7,
                 "started":"2026-11-26T06:40:00Z"},
       "nodes":[
        {"id":"n1","address":"h1:9090","zone":"eu-1a","self":true,"state":"up",
         "hintsPending":0,"records":1234567,"diskUsedBytes":1288490188},
        {"id":"n2","address":"h2:9090","self":false,"state":"down","hintsPending":3,
         "repair":{"recordsRepaired":5,"recordsRepairedTotal":9}}]}
      """;

  private final FakeNode first = new FakeNode();
  private final FakeNode second = new FakeNode();
  private KvorumClient client;

  @BeforeEach
  void start() throws IOException {
    first.start();
    second.start();
    client =
        KvorumClient.builder()
            .seed("127.0.0.1", first.port())
            .seed("127.0.0.1", second.port())
            .discovery(false)
            .token("admin-token")
            .backOff(java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(2))
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    first.stop();
    second.stop();
  }

  @Test
  void theClusterViewIsTheNodesDocumentWithItsCoreTyped() {
    first.answer("GET /v0/cluster", 200, VIEW);

    ClusterView view = client.admin().cluster();

    assertThat(view.node()).isEqualTo("n1");
    assertThat(view.epoch()).isEqualTo(7);
    assertThat(view.ready()).isTrue();
    assertThat(view.change())
        .contains(
            new MembershipChange("move", "n2", "eu-1b", 7, Instant.parse("2026-11-26T06:40:00Z")));
    assertThat(view.members())
        .extracting(ClusterView.Member::id, ClusterView.Member::state, ClusterView.Member::self)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("n1", "up", true),
            org.assertj.core.groups.Tuple.tuple("n2", "down", false));
    Map<String, Object> n1 = view.members().get(0).json();
    assertThat(((Number) n1.get("records")).longValue()).isEqualTo(1_234_567L);
    assertThat(view.members().get(1).json()).containsKey("repair").doesNotContainKey("records");
    assertThat(view.json().get("version")).isEqualTo("0.2.0");
    assertThatThrownBy(() -> view.json().put("node", "n9"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(first.requests).containsExactly("GET /v0/cluster Bearer admin-token");
    assertThat(second.requests).isEmpty();
  }

  @Test
  void anAnswerThatIsNoClusterViewIsAnErrorWithTheStatusItCameWith() {
    first.answer("GET /v0/cluster", 200, "{\"title\":\"Not a view\"}");

    assertThatThrownBy(() -> client.admin().cluster())
        .isInstanceOfSatisfying(
            KvorumClientException.class,
            e -> {
              assertThat(e.status()).isEqualTo(200);
              assertThat(e.title()).isEqualTo("Not a view");
            });
  }

  @Test
  void aNodeNotReadyAnswersWhyAndIsAskedOnce() {
    first.answer("GET /v0/status", 200, "{\"status\":\"ready\",\"node\":\"n1\"}");
    assertThat(client.admin().status()).isEqualTo(new Readiness(true, "n1", null));

    first.answer(
        "GET /v0/status",
        503,
        "{\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"the node is starting\","
            + "\"node\":\"n1\"}");
    assertThat(client.admin().status())
        .isEqualTo(new Readiness(false, "n1", "the node is starting"));
    assertThat(first.requests).hasSize(2);
  }

  @Test
  void aDecommissionStartedSaysWhichChangeAndARefusalIsA409() {
    first.answer(
        "POST /v0/cluster/decommission",
        202,
        "{\"status\":\"started\",\"node\":\"n3\",\"change\":{\"kind\":\"decommission\","
            + "\"node\":\"n3\",\"epoch\":5,\"started\":\"2026-11-27T10:00:00Z\"}}");

    MembershipChangeResult started = client.admin().decommission();

    assertThat(started.aborted()).isFalse();
    assertThat(started.node()).isEqualTo("n3");
    assertThat(started.change())
        .isEqualTo(
            new MembershipChange(
                "decommission", "n3", null, 5, Instant.parse("2026-11-27T10:00:00Z")));

    first.answer(
        "POST /v0/cluster/decommission",
        409,
        "{\"title\":\"Conflict\",\"status\":409,\"detail\":\"a membership change is in progress\"}");
    assertThatThrownBy(() -> client.admin().decommission())
        .isInstanceOfSatisfying(
            KvorumClientException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              assertThat(e.detail()).isEqualTo("a membership change is in progress");
            });
  }

  @Test
  void aChangeIsNotSentAgainAfterA503() {
    first.answer("POST /v0/cluster/decommission", 503, "{\"status\":503}");

    assertThatThrownBy(() -> client.admin().decommission())
        .isInstanceOf(KvorumClientException.Unavailable.class);
    assertThat(first.requests).hasSize(1);
    assertThat(second.requests).isEmpty();
  }

  @Test
  void removingANodeThatDiedJoiningAbortsItsJoin() {
    first.answer(
        "POST /v0/cluster/remove",
        200,
        "{\"status\":\"aborted\",\"node\":\"n0\",\"change\":{\"kind\":\"join\",\"node\":\"n3\"}}");

    MembershipChangeResult result = client.admin().remove("n3");

    assertThat(result.aborted()).isTrue();
    assertThat(result.node()).isEqualTo("n0");
    assertThat(result.change().kind()).isEqualTo("join");
    assertThat(result.change().started()).isNull();
    assertThat(first.requests)
        .containsExactly("POST /v0/cluster/remove?node=n3 Bearer admin-token");
    assertThatThrownBy(() -> client.admin().remove(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRepairAnswersTheNodeThatStartedIt() {
    first.answer("POST /v0/repair", 202, "{\"status\":\"started\",\"node\":\"n1\"}");
    assertThat(client.admin().repair()).isEqualTo("n1");

    first.answer("POST /v0/repair", 403, "{\"title\":\"Forbidden\",\"status\":403}");
    assertThatThrownBy(() -> client.admin().repair())
        .isInstanceOf(KvorumClientException.Forbidden.class);
  }

  @Test
  void snapshotsAreTakenListedWithTheDamagedApartAndDeleted() {
    first.answer(
        "POST /v0/snapshots",
        201,
        """
        {"name":"nightly","node":"n1","path":"/data/snapshots/nightly",
         "takenAt":"2026-11-27T02:15:00Z","tookMillis":120,"versionsUpTo":1795000000000,
         "records":1000,"bytes":65536,"format":"2","release":"0.2.0"}
        """);
    first.answer(
        "GET /v0/snapshots",
        200,
        """
        {"snapshots":[{"name":"nightly","path":"/data/snapshots/nightly","records":1000}],
         "damaged":[{"name":"cut","path":"/data/snapshots/cut","problem":"no manifest.json"}]}
        """);
    first.answer("DELETE /v0/snapshots/cut", 204, "");
    first.answer("DELETE /v0/snapshots/gone", 404, "{\"status\":404}");

    Snapshot taken = client.admin().takeSnapshot("nightly");
    SnapshotList list = client.admin().snapshots();

    assertThat(taken)
        .isEqualTo(
            new Snapshot(
                "nightly",
                "n1",
                "/data/snapshots/nightly",
                Instant.parse("2026-11-27T02:15:00Z"),
                120,
                1_795_000_000_000L,
                1000,
                65536,
                "2",
                "0.2.0"));
    assertThat(list.snapshots()).extracting(Snapshot::name).containsExactly("nightly");
    assertThat(list.snapshots().get(0).records()).isEqualTo(1000);
    assertThat(list.damaged())
        .containsExactly(
            new SnapshotList.Damaged("cut", "/data/snapshots/cut", "no manifest.json"));
    assertThat(client.admin().deleteSnapshot("cut")).isTrue();
    assertThat(client.admin().deleteSnapshot("gone")).isFalse();
    assertThat(first.requests)
        .startsWith("POST /v0/snapshots?name=nightly Bearer admin-token")
        .contains("DELETE /v0/snapshots/cut Bearer admin-token");
  }

  @Test
  void aSnapshotRefusedOrAnsweredWithoutItsPathIsAnError() {
    first.answer("POST /v0/snapshots", 409, "{\"title\":\"Conflict\",\"status\":409}");
    assertThatThrownBy(() -> client.admin().takeSnapshot("nightly"))
        .isInstanceOfSatisfying(
            KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(409));

    first.answer("POST /v0/snapshots", 201, "{\"name\":\"nightly\"}");
    assertThatThrownBy(() -> client.admin().takeSnapshot("nightly"))
        .isInstanceOfSatisfying(
            KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(201));
  }

  @Test
  void aBatchIsPostedAsItIsAndItsRecordsCounted() {
    first.answer("POST /v0/load", 200, "{\"records\":2}");
    byte[] batch = {'K', 'V', 'R', '1', 0, 1, 2};

    assertThat(client.admin().load(batch)).isEqualTo(2);
    assertThat(first.bodies).containsExactly(batch);
    assertThat(first.contentTypes).containsExactly(KvorumApi.RECORDS);

    first.answer("POST /v0/load", 504, "{\"title\":\"Not Enough Replicas\",\"status\":504}");
    assertThatThrownBy(() -> client.admin().load(batch))
        .isInstanceOf(KvorumClientException.NotEnoughReplicas.class);
  }

  @Test
  void aNodeThatIsNotThereIsAnUncheckedIoException() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    try (KvorumClient nobody = KvorumClient.connect("127.0.0.1", closed)) {
      assertThatThrownBy(() -> nobody.admin().cluster())
          .isInstanceOf(UncheckedIOException.class)
          .satisfies(
              e ->
                  assertThat(Causes.chain(e))
                      .anyMatch(java.net.ConnectException.class::isInstance));
    }
  }

  /** Answers each {@code METHOD /path} as the test says; records what came. */
  private static final class FakeNode {
    private final Map<String, String[]> answers = new ConcurrentHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private HttpServer server;

    void start() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/", this::serve);
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    void stop() {
      server.stop(0);
    }

    void answer(String request, int status, String body) {
      answers.put(request, new String[] {Integer.toString(status), body});
    }

    private void serve(HttpExchange exchange) throws IOException {
      String request = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
      requests.add(
          exchange.getRequestMethod()
              + " "
              + exchange.getRequestURI()
              + " "
              + exchange.getRequestHeaders().getFirst(KvorumApi.AUTHORIZATION));
      byte[] body = exchange.getRequestBody().readAllBytes();
      if (request.equals("POST " + KvorumApi.PATH_LOAD)) {
        bodies.add(body);
        contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
      }
      String[] answer = answers.getOrDefault(request, new String[] {"400", "{}"});
      byte[] bytes = answer[1].getBytes(UTF_8);
      int status = Integer.parseInt(answer[0]);
      exchange.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
      if (status != 204) {
        exchange.getResponseBody().write(bytes);
      }
      exchange.close();
    }
  }
}
