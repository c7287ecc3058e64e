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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Conditional writes (SPEC §10) on a cluster of three, over gRPC: the answers with one and with two
 * replicas down, and the round trips and outcomes the coordinator counts. That increments through
 * every node with one restarted lose and double nothing, that of racing creates exactly one wins
 * and every refusal names the winner's version, and that a register's history is linearizable are
 * the simulator's to show ({@code CONDITIONAL}, checked by {@code Linearizability};
 * docs/testing.md, "Moved to the simulator"); {@code ConditionalWriteProcessIT} shows a counter
 * through three processes, one SIGKILLed.
 */
@Timeout(120)
abstract class ConditionalWriteScenarios {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration RACE_TIMEOUT = Duration.ofSeconds(10);
  private static final String NEVER_ISSUED = "\"1.0\"";

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

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
   * Ten clients create one fresh key at once ({@code PUT If-None-Match: *}), through the three
   * nodes in turn, twenty times: each time one answers 201 and the nine others 412 naming its
   * version, never 504 (the losers learn the winner's value from the answers to their prepares).
   * The simulator races creates over many more seeds ({@code CreateRaceSimulationTest}).
   */
  @Test
  void ofTenRacingCreatesOneAnswers201AndNine412() throws Exception {
    // Generous: on a busy machine a cold cluster's first races take long (a 504 is a timeout's).
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(RACE_TIMEOUT))) {
      ExecutorService writers = Executors.newFixedThreadPool(10);
      try {
        for (int race = 0; race < 20; race++) {
          byte[] key = utf8("race-" + race);
          List<Future<String>> answers = new ArrayList<>();
          for (int w = 0; w < 10; w++) {
            KvorumClient client = cluster.client(1 + w % 3);
            byte[] value = utf8("w" + w);
            answers.add(writers.submit(() -> create(client, key, value)));
          }
          List<String> got = new ArrayList<>();
          for (Future<String> answer : answers) {
            got.add(answer.get(30, TimeUnit.SECONDS));
          }
          String winner = got.stream().filter(a -> a.startsWith("201")).findFirst().orElse("");
          String version = winner.substring(Math.min(4, winner.length()));
          assertThat(got)
              .as("race %d", race)
              .containsOnlyOnce(winner)
              .filteredOn(a -> !a.equals(winner))
              .hasSize(9)
              .allMatch(a -> a.equals("412 " + version));
        }
      } finally {
        writers.shutdownNow();
      }
    }
  }

  private static String create(KvorumClient client, byte[] key, byte[] value) {
    try {
      ConditionalResult result = client.putIfAbsent(key, value);
      return (result.applied() ? "201 " : "412 ") + result.etag().orElse("-");
    } catch (KvorumClientException e) {
      return e.status() + " " + e.getMessage();
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
   * uncontended create takes a prepare and an accept, no commit (the coordinator's acceptor accepts
   * first, the others store the value as they accept it); a refused one a prepare alone (the
   * current value is committed on every replica that answered it, so the 412 needs no round of its
   * own); with two replicas down the write is a failure after rounds tried again for want of a
   * majority.
   */
  @Test
  void theCoordinatorCountsItsRoundTripsAndOutcomes() {
    try (TestCluster cluster = clusters().start(3, c -> c.requestTimeout(REQUEST_TIMEOUT))) {
      KvorumClient client = cluster.client(1);
      MeterRegistry registry = cluster.node(1).bootstrap().registry();
      assertThat(client.putIfAbsent(utf8("named"), utf8("first")).applied()).isTrue();
      assertThat(paxos(registry, "phases", "phase", "prepare")).isEqualTo(1);
      assertThat(paxos(registry, "phases", "phase", "accept")).isEqualTo(1);
      assertThat(paxos(registry, "phases", "phase", "commit")).isZero();
      assertThat(paxos(registry, "requests", "outcome", "applied")).isEqualTo(1);

      assertThat(client.putIfAbsent(utf8("named"), utf8("second")).applied()).isFalse();
      assertThat(paxos(registry, "phases", "phase", "prepare")).isEqualTo(2);
      assertThat(paxos(registry, "phases", "phase", "accept")).isEqualTo(1);
      assertThat(paxos(registry, "phases", "phase", "commit")).isZero();
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
