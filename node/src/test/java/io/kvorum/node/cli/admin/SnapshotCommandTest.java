package io.kvorum.node.cli.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kvorum.node.cli.admin.AdminCommandsTest.Run;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kvorum-node snapshot --prefix P --keep K} against three fake members that keep their
 * snapshots in a list and answer {@code /v0/snapshots} as SPEC §11 says: the series is pruned to K
 * on every member, an operator's own snapshots stay, and a member that does not delete is named.
 * The snapshots themselves on real nodes are {@code SnapshotProcessIT}.
 */
@Timeout(60)
class SnapshotCommandTest {
  private final List<FakeMember> members = new ArrayList<>();

  @AfterEach
  void stop() {
    members.forEach(m -> m.server.stop(0));
  }

  @Test
  void keepDeletesTheSeriesOlderSnapshotsOnEveryMemberAndNothingElse() throws IOException {
    start(3);
    for (FakeMember m : members) {
      m.snapshots.addAll(
          List.of(
              "nightly-20250101-000000",
              "nightly-20250102-000000",
              "nightly-20250103-000000",
              "nightly-before-upgrade",
              "weekly-20250101-000000",
              "20250101-000000"));
    }

    Run run = snapshot("--prefix", "nightly-", "--keep", "2");

    assertThat(run.exit()).as(run.err()).isZero();
    for (FakeMember m : members) {
      String taken =
          m.snapshots.stream()
              .filter(n -> n.matches("nightly-2\\d{7}-\\d{6}"))
              .max(String::compareTo)
              .orElseThrow();
      assertThat(taken).isGreaterThan("nightly-20260101-000000");
      assertThat(m.snapshots)
          .containsExactlyInAnyOrder(
              "nightly-20250103-000000",
              taken,
              "nightly-before-upgrade",
              "weekly-20250101-000000",
              "20250101-000000");
      assertThat(run.out())
          .contains(m.id + "  deleted nightly-20250101-000000")
          .contains(m.id + "  deleted nightly-20250102-000000");
    }
    assertThat(run.err()).contains("taken on all 3 members").doesNotContain("did not");
  }

  @Test
  void aMemberThatDoesNotDeleteIsNamedAndTheExitCodeIsOne() throws IOException {
    start(3);
    members.forEach(m -> m.snapshots.add("nightly-20250101-000000"));
    members.get(1).refuseDeletes = true;

    Run run = snapshot("--prefix", "nightly-", "--keep", "1");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(members.get(0).snapshots).doesNotContain("nightly-20250101-000000").hasSize(1);
    assertThat(members.get(2).snapshots).doesNotContain("nightly-20250101-000000").hasSize(1);
    assertThat(members.get(1).snapshots).contains("nightly-20250101-000000").hasSize(2);
    assertThat(run.err())
        .contains(
            "kvorum-node snapshot: m1 did not delete its older snapshots: nightly-20250101-000000:"
                + " 500 Internal Server Error: disk on fire")
        .contains(
            "kvorum-node snapshot: older snapshots of nightly- are left on m1 (--keep 1 could not"
                + " delete them there)");
  }

  @Test
  void nothingIsDeletedWhenAMemberDidNotTakeTheSnapshot() throws IOException {
    start(2);
    members.forEach(m -> m.snapshots.add("nightly-20250101-000000"));
    members.get(1).refuseTakes = true;

    Run run = snapshot("--prefix", "nightly-", "--keep", "1");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("is missing on m1");
    members.forEach(m -> assertThat(m.snapshots).contains("nightly-20250101-000000"));
    members.forEach(m -> assertThat(m.requests).noneMatch(r -> r.startsWith("DELETE")));
  }

  @Test
  void keepWithoutAPrefixOrWithANameIsExitCodeTwo() throws IOException {
    start(1);

    Run noPrefix = snapshot("--keep", "3");
    Run both = snapshot("--prefix", "nightly-", "--name", "x", "--keep", "3");
    Run zero = snapshot("--prefix", "nightly-", "--keep", "0");
    Run badPrefix = snapshot("--prefix", "night/ly", "--keep", "1");

    assertThat(noPrefix.exit()).isEqualTo(2);
    assertThat(noPrefix.err()).contains("--keep").contains("--prefix");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--prefix or --name, not both");
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.err()).contains("--keep 0 must be at least 1");
    assertThat(badPrefix.exit()).isEqualTo(2);
    assertThat(badPrefix.err()).contains("--prefix 'night/ly'");
    assertThat(members.get(0).requests).isEmpty();
  }

  @Test
  void withoutNodeFlagsEachMemberIsReachedAtTheHttpAddressItAdvertises() throws IOException {
    start(3);

    List<String> args = new ArrayList<>(List.of("snapshot", "--host", "127.0.0.1"));
    args.addAll(List.of("--port", String.valueOf(members.get(0).port()), "--name", "one"));
    Run run = AdminCommandsTest.run(args.toArray(String[]::new));

    assertThat(run.exit()).as(run.err()).isZero();
    for (FakeMember m : members) {
      assertThat(m.snapshots).containsExactly("one");
    }
    assertThat(run.err()).contains("taken on all 3 members");
  }

  private Run snapshot(String... args) {
    List<String> all = new ArrayList<>(List.of("snapshot", "--host", "127.0.0.1"));
    all.addAll(List.of("--port", String.valueOf(members.get(0).port())));
    for (FakeMember m : members) {
      all.addAll(List.of("--node", m.id + "=127.0.0.1:" + m.port()));
    }
    all.addAll(List.of(args));
    return AdminCommandsTest.run(all.toArray(String[]::new));
  }

  private void start(int count) throws IOException {
    for (int i = 0; i < count; i++) {
      members.add(new FakeMember("m" + i));
    }
    for (FakeMember m : members) {
      m.server.start();
    }
  }

  /** A member's snapshot endpoints over a list of names; m0 also answers /v0/cluster. */
  private final class FakeMember {
    final String id;
    final HttpServer server;
    final List<String> snapshots = new CopyOnWriteArrayList<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    volatile boolean refuseDeletes;
    volatile boolean refuseTakes;

    FakeMember(String id) throws IOException {
      this.id = id;
      this.server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", this::handle);
    }

    int port() {
      return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      String query = exchange.getRequestURI().getQuery();
      requests.add(method + " " + exchange.getRequestURI());
      if (path.equals("/v0/cluster")) {
        String nodes =
            members.stream()
                .map(
                    m ->
                        ("{\"id\":\"%s\",\"address\":\"127.0.0.1:1\","
                                + "\"httpAddress\":\"127.0.0.1:%d\",\"self\":%s}")
                            .formatted(m.id, m.port(), m == this))
                .collect(Collectors.joining(","));
        answer(exchange, 200, "{\"node\":\"" + id + "\",\"nodes\":[" + nodes + "]}");
      } else if (path.equals("/v0/snapshots") && method.equals("POST")) {
        if (refuseTakes) {
          answer(exchange, 507, "{\"title\":\"Insufficient Storage\",\"status\":507}");
          return;
        }
        String name = query.substring("name=".length());
        snapshots.add(name);
        answer(
            exchange,
            201,
            "{\"name\":\"%s\",\"path\":\"/data/snapshots/%s\"}".formatted(name, name));
      } else if (path.equals("/v0/snapshots")) {
        String list =
            snapshots.stream()
                .map(n -> "{\"name\":\"" + n + "\"}")
                .collect(Collectors.joining(","));
        answer(exchange, 200, "{\"snapshots\":[" + list + "]}");
      } else if (path.startsWith("/v0/snapshots/") && method.equals("DELETE")) {
        if (refuseDeletes) {
          answer(
              exchange,
              500,
              "{\"title\":\"Internal Server Error\",\"status\":500,\"detail\":\"disk on fire\"}");
          return;
        }
        boolean removed = snapshots.remove(path.substring("/v0/snapshots/".length()));
        exchange.sendResponseHeaders(removed ? 204 : 404, -1);
        exchange.close();
      } else {
        answer(exchange, 404, "{}");
      }
    }

    private void answer(HttpExchange exchange, int status, String body) throws IOException {
      byte[] bytes = body.getBytes(UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    }
  }
}
