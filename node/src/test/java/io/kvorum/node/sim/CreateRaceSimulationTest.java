package io.kvorum.node.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Version;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ten clients create one fresh key at once ({@code PUT If-None-Match: *}), each through a node
 * picked at random, on a healthy cluster of three in virtual time: exactly one answers 201 and the
 * nine others 412 naming the winner's version, never 504 (a proposer that lost the race learns the
 * outcome by finishing the round it lost). Ten races a seed, 20 seeds: 200 races.
 */
class CreateRaceSimulationTest {
  private static final int WRITERS = 10;
  private static final int RACES = 10;

  static LongStream seeds() {
    return LongStream.rangeClosed(1, 20);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void tenRacingCreatesAnswerOne201AndNine412(long seed) {
    try (SimLogging quiet = SimLogging.quiet();
        SimCluster cluster = SimCluster.create(seed, 3, c -> c)) {
      cluster.startAll();
      assertThat(cluster.runUntil(cluster::allReady, Duration.ofSeconds(60))).isTrue();
      for (int race = 0; race < RACES; race++) {
        Key key = Key.utf8("race-" + race);
        List<CompletableFuture<String>> answers = new ArrayList<>();
        for (int writer = 0; writer < WRITERS; writer++) {
          SimNode node = cluster.node(1 + cluster.scheduler().random().nextInt(cluster.size()));
          byte[] value = ("w" + writer).getBytes(StandardCharsets.UTF_8);
          answers.add(
              cluster
                  .<Version>request(
                      node,
                      Duration.ofSeconds(10),
                      s ->
                          s.coordinator()
                              .putIf(
                                  key,
                                  new Condition.IfAbsent(),
                                  value,
                                  Duration.ZERO,
                                  new Quorum(2, 3)))
                  .handle(CreateRaceSimulationTest::answer));
        }
        assertThat(
                cluster.runUntil(
                    () -> answers.stream().allMatch(CompletableFuture::isDone),
                    Duration.ofSeconds(30)))
            .isTrue();
        Map<String, Integer> counts = new TreeMap<>();
        answers.forEach(a -> counts.merge(a.join(), 1, Integer::sum));
        assertThat(counts).as("seed %d race %d", seed, race).isEqualTo(Map.of("201", 1, "412", 9));
      }
    }
  }

  private static String answer(Version written, Throwable error) {
    if (error == null) {
      return "201";
    }
    Throwable cause = Failures.unwrap(error);
    if (cause instanceof ConditionFailedException refused) {
      return refused.current().map(v -> "412").orElse("412 without the winner's version");
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
