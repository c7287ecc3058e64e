package io.kvorum.node.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Version;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One hot key, written by 24 clients at once through all three nodes of a healthy cluster, each an
 * {@code If-Match} chain on the newest version it saw ({@code If-None-Match: *} before it saw any),
 * as issue 42's hot-key run does: every request is decided, 201 or 412, none 504, because after the
 * first lost round every node hands the key's writes to its one proposer, which runs them one after
 * another instead of racing them. The writes applied form one chain (no version is the parent of
 * two), and the hand-over did happen. 20 seeds, 1,200 requests each.
 */
class HotKeySimulationTest {
  private static final int CLIENTS = 24;
  private static final int REQUESTS_PER_CLIENT = 50;

  static LongStream seeds() {
    return LongStream.rangeClosed(1, 20);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyWriteOfAHotKeyIsDecidedAndTheyFormOneChain(long seed) {
    try (SimLogging quiet = SimLogging.quiet();
        SimCluster cluster = SimCluster.create(seed, 3, c -> c)) {
      cluster.startAll();
      assertThat(cluster.runUntil(cluster::allReady, Duration.ofSeconds(60))).isTrue();
      Key key = Key.utf8("hot");
      Map<String, Integer> answers = new TreeMap<>();
      List<Version> parents = new ArrayList<>();
      List<Version> applied = new ArrayList<>();
      List<Client> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Client client = new Client(cluster, key, i, answers, parents, applied);
        clients.add(client);
        client.next();
      }
      assertThat(
              cluster.runUntil(
                  () -> clients.stream().allMatch(c -> c.sent == REQUESTS_PER_CLIENT && c.idle),
                  Duration.ofMinutes(10)))
          .isTrue();

      assertThat(answers.keySet()).as("seed %d: %s", seed, answers).containsOnly("201", "412");
      Set<Version> distinct = new HashSet<>(parents);
      assertThat(distinct)
          .as("seed %d: a version is the parent of two writes", seed)
          .hasSameSizeAs(parents);
      assertThat(new HashSet<>(applied)).hasSameSizeAs(applied);
      double handedOver =
          cluster.nodes().stream()
              .mapToDouble(
                  n ->
                      n.server()
                          .map(s -> s.registry().find("kvorum.paxos.handovers").counter())
                          .map(Counter::count)
                          .orElse(0.0))
              .sum();
      assertThat(handedOver).as("seed %d: writes handed over", seed).isPositive();
    }
  }

  /** One client: its requests one after another, each through a node picked at random. */
  private static final class Client {
    private final SimCluster cluster;
    private final Key key;
    private final int id;
    private final Map<String, Integer> answers;
    private final List<Version> parents;
    private final List<Version> applied;
    private Optional<Version> newest = Optional.empty();
    private int sent;
    private boolean idle;

    Client(
        SimCluster cluster,
        Key key,
        int id,
        Map<String, Integer> answers,
        List<Version> parents,
        List<Version> applied) {
      this.cluster = cluster;
      this.key = key;
      this.id = id;
      this.answers = answers;
      this.parents = parents;
      this.applied = applied;
    }

    void next() {
      if (sent == REQUESTS_PER_CLIENT) {
        idle = true;
        return;
      }
      sent++;
      SimNode node = cluster.node(1 + cluster.scheduler().random().nextInt(cluster.size()));
      Optional<Version> parent = newest;
      Condition condition =
          parent.<Condition>map(Condition.IfMatch::new).orElseGet(Condition.IfAbsent::new);
      byte[] value = ("c" + id + "-" + sent).getBytes(StandardCharsets.UTF_8);
      cluster
          .<Version>request(
              node,
              Duration.ofSeconds(10),
              s -> s.coordinator().putIf(key, condition, value, Duration.ZERO, new Quorum(2, 3)))
          .whenComplete(
              (written, error) -> {
                if (error == null) {
                  answers.merge("201", 1, Integer::sum);
                  parent.ifPresent(parents::add);
                  applied.add(written);
                  newest = Optional.of(written);
                } else if (Failures.unwrap(error) instanceof ConditionFailedException refused) {
                  answers.merge("412", 1, Integer::sum);
                  newest = refused.current().or(() -> newest);
                } else {
                  Throwable cause = Failures.unwrap(error);
                  answers.merge(
                      cause.getClass().getSimpleName() + ": " + cause.getMessage(),
                      1,
                      Integer::sum);
                }
                next();
              });
    }
  }
}
