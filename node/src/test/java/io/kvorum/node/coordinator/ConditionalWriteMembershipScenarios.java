package io.kvorum.node.coordinator;

import static io.kvorum.node.coordinator.ConditionalWriteScenarios.utf8;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.CasCounter;
import io.kvorum.node.testing.Porcupine;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Owners;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional writes (SPEC §10) while the membership changes (SPEC §8): their Paxos rounds go to
 * the key's replicas and to the replica it gains, which must answer too (Cassandra's pending
 * replicas), and their commits reach the new replica. Each scenario holds the change in progress by
 * cutting the link its stream needs for the key under test (the join cannot complete while the
 * joining node cannot pull from the key's displaced owner, the decommission while the leaving node
 * cannot push to the key's new replica), so that the writes provably run during the change, then
 * heals the link and lets the change complete under the same load.
 */
@Timeout(180)
abstract class ConditionalWriteMembershipScenarios {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final int WORKERS = 3;
  private static final int COPIES = 3;
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N4 = NodeId.of("n4");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

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
   * Three workers increment a counter by compare-and-set through every node while n4 joins; the
   * counter is a key n4 gains from n1, and n1 and n4 cannot reach each other until increments have
   * applied during the join. The new replica holds the counter before the join completes (only a
   * commit can have brought it: its stream is cut), no increment is lost or doubled, and the
   * counter reads the same through every node, the new one included, after the join.
   */
  @Test
  void incrementsThroughEveryNodeLoseNothingWhileANodeJoins() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      Owners joining = new Owners(ClusterState.seed(members(cluster)).withJoining(member(N4), 0));
      String name =
          keyWhere(
              "counter-",
              key ->
                  joining.gained(key, COPIES).equals(List.of(N4))
                      && joining.handoffSource(key, COPIES).equals(Optional.of(N1)));
      byte[] key = utf8(name);
      AtomicBoolean joined = new AtomicBoolean();
      cluster.links().partition(N1, N4);
      try (CasCounter.Increments increments =
          new CasCounter.Increments(
              key,
              WORKERS,
              Integer.MAX_VALUE,
              4,
              i -> cluster.client(1 + i),
              i -> i < 3 ? cluster.node(1 + i).running() : joined.get())) {
        increments.awaitApplied(10);
        int n4 = cluster.join(2);
        // Asked once: each call waits on a thread of the common pool until the node is ready.
        CompletableFuture<Void> ready = cluster.node(n4).ready();
        awaitChange(cluster, "join");
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> cluster.node(n4).stored(name).isPresent());
        increments.awaitApplied(increments.applied() + 10);
        assertThat(ready).as("the join, held by the cut link").isNotDone();

        cluster.heal();
        assertThat(ready).succeedsWithin(Duration.ofSeconds(60));
        joined.set(true);
        increments.stopAt(increments.applied() + 15);
        increments.finish(Duration.ofSeconds(90));

        long end = CasCounter.value(cluster.client(n4).getVersioned(key));
        increments.assertNoneLostOrDoubled(end);
        for (int node = 1; node <= 3; node++) {
          assertThat(CasCounter.value(cluster.client(node).getVersioned(key))).isEqualTo(end);
        }
        awaitStored(cluster, n4, name, end);
      }
    }
  }

  /**
   * The same while n4 decommissions: the counter is a key n4 holds, whose new replica n4 cannot
   * reach until increments have applied during the decommission; that replica holds the counter
   * before the change completes, and after it nothing was lost or doubled.
   */
  @Test
  void incrementsThroughEveryNodeLoseNothingWhileANodeDecommissions() throws Exception {
    try (TestCluster cluster = gossipingFast().start(4, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      Owners leaving =
          new Owners(
              ClusterState.seed(members(cluster))
                  .withLeaving(N4, ClusterState.Kind.DECOMMISSION, 0));
      String name =
          keyWhere(
              "counter-",
              key ->
                  leaving.participants(key, COPIES).natural().contains(N4)
                      && leaving.gained(key, COPIES).size() == 1);
      NodeId gaining = leaving.gained(Key.utf8(name), COPIES).get(0);
      int gainer = Integer.parseInt(gaining.value().substring(1));
      byte[] key = utf8(name);
      try (CasCounter.Increments increments =
          new CasCounter.Increments(
              key,
              WORKERS,
              Integer.MAX_VALUE,
              4,
              i -> cluster.client(1 + i),
              i -> i < 3 ? cluster.node(1 + i).running() : !cluster.node(4).left())) {
        increments.awaitApplied(10);
        assertThat(cluster.node(gainer).stored(name)).as("before the change").isEmpty();
        cluster.links().partition(N4, gaining);
        HttpResponse<String> started = post(cluster, 4, KvorumApi.PATH_DECOMMISSION);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        awaitChange(cluster, "decommission");
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> cluster.node(gainer).stored(name).isPresent());
        increments.awaitApplied(increments.applied() + 10);
        assertThat(cluster.node(4).left()).as("the decommission, held by the cut link").isFalse();

        cluster.heal();
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> cluster.node(4).left());
        increments.stopAt(increments.applied() + 15);
        increments.finish(Duration.ofSeconds(90));

        long end = CasCounter.value(cluster.client(1).getVersioned(key));
        increments.assertNoneLostOrDoubled(end);
        for (int node = 2; node <= 3; node++) {
          assertThat(CasCounter.value(cluster.client(node).getVersioned(key))).isEqualTo(end);
        }
        awaitStored(cluster, gainer, name, end);
      }
    }
  }

  /**
   * A register's history under conditional writes through nodes 1 to 3 while n4 joins, recorded in
   * three phases (the join held by a cut link; the link healed until the join completed; after it)
   * and checked for linearizability by Porcupine.
   */
  @Test
  void aRegisterStaysLinearizableWhileANodeJoins(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = gossipingFast().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      Owners joining = new Owners(ClusterState.seed(members(cluster)).withJoining(member(N4), 0));
      String name =
          keyWhere(
              "register-",
              key ->
                  joining.gained(key, COPIES).equals(List.of(N4))
                      && joining.handoffSource(key, COPIES).equals(Optional.of(N1)));
      byte[] key = utf8(name);
      List<Porcupine.Operation> history = Collections.synchronizedList(new ArrayList<>());
      cluster.links().partition(N1, N4);
      int n4 = cluster.join(2);
      CompletableFuture<Void> ready = cluster.node(n4).ready();
      awaitChange(cluster, "join");

      ConditionalWriteScenarios.recordRegister(cluster, key, history, i -> i < 12);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.node(n4).stored(name).isPresent());
      assertThat(ready).as("the join, held by the cut link").isNotDone();
      cluster.heal();
      ConditionalWriteScenarios.recordRegister(
          cluster, key, history, i -> i < 200 && !ready.isDone());
      assertThat(ready).succeedsWithin(Duration.ofSeconds(60));
      ConditionalWriteScenarios.recordRegister(cluster, key, history, i -> i < 12);

      assertThat(history.stream().filter(op -> op.result().equals("ok"))).isNotEmpty();
      assertThat(Porcupine.check(history, dir)).isEqualTo("linearizable");
    }
  }

  /**
   * Paxos repair: a conditional write whose proposer died between its accepts and its commit is
   * accepted by two of the key's three acceptors before n4 joins, and known to them alone (no
   * record holds it). The join displaces one of the two; once it completes, the key's owners after
   * it without the other one (stopped) answer the chosen value: the join's repair finished it on
   * the acceptors of the change, the new one included. Without the repair they would answer the
   * value from before, and the chosen one could come back later through the stopped node.
   */
  @Test
  void aValueAcceptedButNotCommittedBeforeAJoinIsKnownToTheNewOwners() throws Exception {
    try (TestCluster cluster = gossipingFast().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      Owners joining = new Owners(ClusterState.seed(members(cluster)).withJoining(member(N4), 0));
      String name =
          keyWhere(
              "accepted-",
              key ->
                  joining.gained(key, COPIES).equals(List.of(N4))
                      && joining.handoffSource(key, COPIES).isPresent());
      byte[] key = utf8(name);
      NodeId displaced = joining.handoffSource(Key.utf8(name), COPIES).orElseThrow();
      List<NodeId> staying = cluster.ids().stream().filter(id -> !id.equals(displaced)).toList();
      int other = number(staying.get(0));
      int bystander = number(staying.get(1));
      cluster.client(bystander).put(key, utf8("before"));
      Record before = cluster.node(bystander).stored(name).orElseThrow();
      Ballot ballot =
          new Ballot(Version.of(before.version().physicalMillis() + 1, 0), staying.get(1));
      Proposal chosen =
          new Proposal(
              ballot,
              Optional.of(Record.value(ballot.version(), utf8("chosen"), 0, COPIES)),
              Optional.of(before.version()));
      for (int acceptor : List.of(number(displaced), other)) {
        AcceptorStore states = cluster.node(acceptor).acceptors();
        states.step(Key.utf8(name), state -> state.prepare(ballot, Optional.empty())).join();
        states.step(Key.utf8(name), state -> state.accept(chosen)).join();
      }

      int n4 = cluster.join(bystander);
      assertThat(cluster.node(n4).ready()).succeedsWithin(Duration.ofSeconds(60));
      awaitNoChange(cluster, bystander);
      cluster.stop(other);

      assertThat(
              cluster
                  .client(bystander)
                  .getLinearizableAsync(key)
                  .get()
                  .map(found -> new String(found.value(), UTF_8)))
          .as("a linearizable read of the owners after the join, without %s", staying.get(0))
          .contains("chosen");
    }
  }

  private static int number(NodeId id) {
    return Integer.parseInt(id.value().substring(1));
  }

  /** Waits until node {@code node} knows no change in progress. */
  private static void awaitNoChange(TestCluster cluster, int node) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> change(cluster, node).isMissingNode());
  }

  /** The change in progress in node {@code node}'s view of the cluster; missing if none. */
  private static JsonNode change(TestCluster cluster, int node) throws Exception {
    URI view = URI.create(cluster.node(node).url(KvorumApi.PATH_CLUSTER));
    return JSON.readTree(
            HTTP.send(HttpRequest.newBuilder(view).build(), HttpResponse.BodyHandlers.ofString())
                .body())
        .path("change");
  }

  private static List<Member> members(TestCluster cluster) {
    return cluster.ids().stream().map(ConditionalWriteMembershipScenarios::member).toList();
  }

  /** A member by id only: placement ranks ids (and zones, none here), not addresses. */
  private static Member member(NodeId id) {
    return new Member(id, id.value() + ".test", 9090);
  }

  /** The first key named {@code prefix} and a number that {@code wanted} accepts. */
  private static String keyWhere(String prefix, Predicate<Key> wanted) {
    for (int i = 0; i < 10_000; i++) {
      if (wanted.test(Key.utf8(prefix + i))) {
        return prefix + i;
      }
    }
    throw new AssertionError("no key " + prefix + "N fits");
  }

  /** Waits until node {@code node} stores the counter {@code name} at {@code value}. */
  private static void awaitStored(TestCluster cluster, int node, String name, long value) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster
                    .node(node)
                    .stored(name)
                    .map(Record::value)
                    .map(bytes -> Long.parseLong(new String(bytes, UTF_8))),
            Optional.of(value)::equals);
  }

  /** Waits until nodes 1 to 3 know the change of {@code kind} in progress. */
  private static void awaitChange(TestCluster cluster, String kind) {
    for (int node = 1; node <= 3; node++) {
      int asked = node;
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> change(cluster, asked).path("kind").asText(), kind::equals);
    }
  }

  private static HttpResponse<String> post(TestCluster cluster, int node, String path)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(cluster.node(node).url(path)))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
