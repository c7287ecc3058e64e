package io.kvorum.node.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.PlantedBug;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The simulator finds each planted bug ({@link PlantedBug}: a one-line change behind a switch only
 * tests turn) within a stated number of seeds of the scenario where it shows, from seed 1, in well
 * under a minute. The bound is what the seeds took when the bug was planted first, with room: a
 * change that makes the simulator blind to one of them fails here.
 *
 * <p>Not among them: {@link PlantedBug#UNSAFE_PAXOS_PURGE}, which about one {@code PAXOS_PURGE}
 * seed in 10,000 shows (see its comment): hunt for it with {@code
 * -Dkvorum.sim.plant=UNSAFE_PAXOS_PURGE -Dkvorum.sim.scenario=PAXOS_PURGE} ({@link
 * SimulationHunt}). And {@link PlantedBug#FEED_PAST_A_MAJORITY}, which {@link
 * ChangeFeedSimulationTest} plants in a scenario of its own (a feed on a node cut off from the
 * others), where every seed finds it; the scenarios here find it about once in a thousand seeds.
 */
class PlantedBugsTest {
  @ParameterizedTest(name = "{0} within {2} seeds of {1}")
  @CsvSource({
    "HINT_REPLAY_SKIPPED, HANDOFF, 10",
    "ACK_ONE_SHORT, EVERYTHING, 20",
    "READ_REPAIR_OLDER, EVERYTHING, 10",
    "PURGE_BEFORE_REPAIR, PURGE, 40",
  })
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void theSimulatorFinds(PlantedBug bug, Scenario scenario, int seeds) {
    Simulation.Result found = null;
    long started = System.nanoTime();
    try (PlantedBug.Planting planted = PlantedBug.plant(bug)) {
      for (long seed = 1; seed <= seeds && found == null; seed++) {
        Simulation.Result result = Simulation.run(seed, scenario);
        if (!result.passed()) {
          found = result;
        }
      }
    }
    assertThat(found).as("%s found within %d seeds of %s", bug, seeds, scenario).isNotNull();
    System.out.printf(
        "%s found by seed %d of %s in %d ms:%n%s%n",
        bug,
        found.seed(),
        scenario,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        SimulationTest.describe(found));
  }

  /**
   * A failing seed shrinks ({@link SimulationShrink}) to fewer faults that still fail one of its
   * checks, and the shrunk schedule replays exactly.
   */
  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void aFailingSeedShrinksToFewerFaultsThatReplayExactly() {
    try (PlantedBug.Planting planted = PlantedBug.plant(PlantedBug.ACK_ONE_SHORT)) {
      SimulationShrink.Shrunk shrunk = SimulationShrink.shrink(2, Scenario.EVERYTHING, 20);
      System.out.println(shrunk.report());
      assertThat(shrunk.kept()).hasSizeLessThan(shrunk.faultsBefore());
      assertThat(shrunk.run().passed()).isFalse();
      Simulation.Result again = Simulation.run(2, Scenario.EVERYTHING, shrunk.kept()::contains);
      assertThat(again.fingerprint()).isEqualTo(shrunk.run().fingerprint());
    }
  }
}
