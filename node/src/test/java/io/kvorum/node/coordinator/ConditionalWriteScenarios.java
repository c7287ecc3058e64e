package io.kvorum.node.coordinator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Versioned;
import io.kvorum.node.testing.CasCounter;
import io.kvorum.node.testing.Porcupine;
import io.kvorum.node.testing.TestCluster;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional writes (SPEC §10) on a cluster of three: compare-and-set increments through every
 * node while one node stops and comes back, racing creates, a register's history checked for
 * linearizability by Porcupine, and the answers with one and with two replicas down.
 */
@Timeout(120)
abstract class ConditionalWriteScenarios {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final int INCREMENTS = 60;
  private static final int WORKERS = 3;
  private static final String NEVER_ISSUED = "\"1.0\"";

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  /**
   * Three workers increment one counter by compare-and-set, each through every node in turn; node 3
   * stops after a third of the increments and starts again after two thirds. Every increment that
   * was answered 201 wrote a value nobody else wrote (none lost, none doubled), and the counter
   * ends at their number, plus at most the increments whose answer was lost (a 504 or a broken
   * connection: they may or may not have applied).
   */
  @Test
  void concurrentIncrementsThroughEveryNodeLoseNothingWhileANodeRestarts() throws Exception {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      byte[] key = utf8("counter");
      try (CasCounter.Increments increments =
          new CasCounter.Increments(
              key,
              WORKERS,
              INCREMENTS,
              3,
              i -> cluster.client(1 + i),
              i -> cluster.node(1 + i).running())) {
        increments.awaitApplied(INCREMENTS / 3);
        cluster.stop(3);
        increments.awaitApplied(2 * INCREMENTS / 3);
        cluster.startNode(3);
        increments.finish(Duration.ofSeconds(90));
        long endValue = CasCounter.value(cluster.client(3).getVersioned(key));
        increments.assertNoneLostOrDoubled(endValue);
        assertThat(CasCounter.value(cluster.client(1).getVersioned(key))).isEqualTo(endValue);
      }
    }
  }

  /** Of many creates of one key racing through every node, exactly one wins; the rest get 412. */
  @Test
  void ofConcurrentCreatesExactlyOneWins() throws Exception {
    int creates = 12;
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      byte[] key = utf8("unique-name");
      ExecutorService racers = Executors.newFixedThreadPool(creates);
      CountDownLatch go = new CountDownLatch(1);
      try {
        List<Future<ConditionalResult>> results = new ArrayList<>();
        for (int i = 0; i < creates; i++) {
          KvorumClient client = cluster.client(1 + i % 3);
          byte[] value = utf8("owner-" + i);
          results.add(
              racers.submit(
                  () -> {
                    go.await();
                    return client.putIfAbsent(key, value);
                  }));
        }
        go.countDown();
        List<ConditionalResult> answers = new ArrayList<>();
        for (Future<ConditionalResult> result : results) {
          answers.add(result.get(30, TimeUnit.SECONDS));
        }
        List<ConditionalResult> won = answers.stream().filter(ConditionalResult::applied).toList();
        assertThat(won).hasSize(1);
        String etag = won.get(0).etag().orElseThrow();
        assertThat(answers.stream().filter(a -> !a.applied()))
            .as("every refusal names the winner's version")
            .allMatch(a -> a.etag().equals(Optional.of(etag)));
        for (int node = 1; node <= 3; node++) {
          assertThat(cluster.client(node).getVersioned(key))
              .hasValueSatisfying(v -> assertThat(v.etag()).isEqualTo(etag));
        }
      } finally {
        racers.shutdownNow();
      }
    }
  }

  /** A majority of the key's replicas decides: one down changes nothing, two down answer 504. */
  @Test
  void oneReplicaDownStillDecidesTwoDownAnswer504() {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      KvorumClient client = cluster.client(1);
      byte[] key = utf8("guarded");
      cluster.stop(3);
      ConditionalResult created = client.putIfAbsent(key, utf8("one"));
      assertThat(created.applied()).isTrue();
      assertThat(client.putIfAbsent(key, utf8("again")).applied()).isFalse();
      String etag = created.etag().orElseThrow();
      ConditionalResult updated = client.putIfMatch(key, utf8("two"), etag);
      assertThat(updated.applied()).isTrue();

      cluster.stop(2);
      for (String tag : new String[] {etag, updated.etag().orElseThrow()}) {
        assertThat(CasCounter.status(() -> client.putIfMatch(key, utf8("three"), tag)))
            .as("If-Match %s with 2 of 3 replicas down", tag)
            .isEqualTo(504);
      }
      assertThat(CasCounter.status(() -> client.putIfAbsent(utf8("fresh"), utf8("x"))))
          .isEqualTo(504);

      cluster.startNode(2);
      cluster.startNode(3);
      assertThat(client.getVersioned(key).map(Versioned::value).map(String::new)).hasValue("two");
    }
  }

  /**
   * Three clients, one per node, read the register (a write expecting a version never issued,
   * answered 412 with the current ETag) and compare-and-set it on the version they last saw; the
   * recorded history (invoke and return times, expected and answered ETags) is checked by Porcupine
   * with a compare-and-set register model and found linearizable.
   */
  @Test
  void aRegisterUnderConditionalWritesIsLinearizable(@TempDir Path dir) throws Exception {
    int operations = 25;
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      List<Porcupine.Operation> history = Collections.synchronizedList(new ArrayList<>());
      recordRegister(cluster, utf8("register"), history, i -> i < operations);
      assertThat(history.stream().filter(op -> op.result().equals("ok"))).isNotEmpty();
      assertThat(Porcupine.check(history, dir)).isEqualTo("linearizable");
    }
  }

  /**
   * Three clients, one per node 1 to 3, each read {@code key} as a register (a write expecting a
   * version never issued, answered 412 with the current ETag) every third operation and otherwise
   * compare-and-set it on the version they last saw, for as long as {@code more} says of the
   * operation's number; each operation as the client saw it is added to {@code history}.
   */
  static void recordRegister(
      TestCluster cluster, byte[] key, List<Porcupine.Operation> history, IntPredicate more)
      throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 1; c <= 3; c++) {
        int client = c;
        KvorumClient kv = cluster.client(client);
        running.add(
            clients.submit(
                () -> {
                  String seen = "";
                  for (int i = 0; more.test(i); i++) {
                    boolean read = i % 3 == 0;
                    String expect = read ? NEVER_ISSUED : seen;
                    byte[] value = utf8("c" + client + "-" + i);
                    long call = System.nanoTime();
                    String result;
                    String etag = "";
                    try {
                      ConditionalResult answer =
                          expect.isEmpty()
                              ? kv.putIfAbsent(key, value)
                              : kv.putIfMatch(key, value, expect);
                      result = answer.applied() ? "ok" : "refused";
                      etag = answer.etag().orElse("");
                      seen = etag;
                    } catch (KvorumClientException e) {
                      assertThat(e.status()).as("a conditional write's failure").isEqualTo(504);
                      result = "unknown";
                    } catch (UncheckedIOException e) {
                      result = "unknown";
                    }
                    history.add(
                        new Porcupine.Operation(
                            client, call, System.nanoTime(), read, expect, result, etag));
                  }
                  return null;
                }));
      }
      for (Future<?> done : running) {
        done.get(90, TimeUnit.SECONDS);
      }
    } finally {
      clients.shutdownNow();
    }
  }

  /**
   * The coordinator counts its round trips (what docs/performance.md divides by the writes): an
   * uncontended create takes a prepare, an accept and a commit, and so does a refused one (the
   * current value is accepted again and committed before the 412); with two replicas down the write
   * is a failure after rounds tried again for want of a majority.
   */
  @Test
  void theCoordinatorCountsItsRoundTripsAndOutcomes() {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      KvorumClient client = cluster.client(1);
      MeterRegistry registry = cluster.node(1).bootstrap().registry();
      assertThat(client.putIfAbsent(utf8("named"), utf8("first")).applied()).isTrue();
      assertThat(paxos(registry, "phases", "phase", "prepare")).isEqualTo(1);
      assertThat(paxos(registry, "phases", "phase", "accept")).isEqualTo(1);
      assertThat(paxos(registry, "phases", "phase", "commit")).isEqualTo(1);
      assertThat(paxos(registry, "requests", "outcome", "applied")).isEqualTo(1);

      assertThat(client.putIfAbsent(utf8("named"), utf8("second")).applied()).isFalse();
      assertThat(paxos(registry, "phases", "phase", "prepare")).isEqualTo(2);
      assertThat(paxos(registry, "phases", "phase", "commit")).isEqualTo(2);
      assertThat(paxos(registry, "requests", "outcome", "refused")).isEqualTo(1);

      cluster.stop(2);
      cluster.stop(3);
      assertThat(CasCounter.status(() -> client.putIfAbsent(utf8("other"), utf8("x"))))
          .isEqualTo(504);
      assertThat(paxos(registry, "retries", "reason", "unreachable")).isPositive();
      assertThat(paxos(registry, "requests", "outcome", "failed")).isEqualTo(1);
      assertThat(paxos(registry, "retries", "reason", "contended")).isZero();
    }
  }

  private static double paxos(MeterRegistry registry, String name, String tag, String value) {
    return registry.get("kvorum.paxos." + name).tag(tag, value).counter().count();
  }

  static byte[] utf8(String s) {
    return s.getBytes(UTF_8);
  }
}
