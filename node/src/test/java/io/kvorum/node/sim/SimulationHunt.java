package io.kvorum.node.sim;

import io.kvorum.node.core.PlantedBug;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A long hunt for bugs: seeds of the simulator run one after another, for a number of seeds or a
 * time, and every failing seed is printed with the command that replays it. Skipped unless asked:
 *
 * <pre>
 * ./mvnw -o -pl node test -Dtest=SimulationHunt -Dkvorum.sim.hunt=100000          # 100,000 seeds
 * ./mvnw -o -pl node test -Dtest=SimulationHunt -Dkvorum.sim.hunt=1h              # an hour
 * </pre>
 *
 * Options: {@code -Dkvorum.sim.first=F} (the first seed, default 1,000,000, past CI's), {@code
 * -Dkvorum.sim.scenario=NAME[,NAME…]} (default: every scenario in turn), {@code
 * -Dkvorum.sim.plant=BUG} (plant a {@link PlantedBug}, to see how soon the hunt finds it).
 */
class SimulationHunt {
  @Test
  @Timeout(value = 7, unit = java.util.concurrent.TimeUnit.DAYS)
  void hunt() {
    String asked = System.getProperty("kvorum.sim.hunt");
    Assumptions.assumeTrue(asked != null, "no -Dkvorum.sim.hunt=SEEDS|DURATION given");
    long seeds = asked.matches("\\d+") ? Long.parseLong(asked) : Long.MAX_VALUE;
    long until =
        asked.matches("\\d+")
            ? Long.MAX_VALUE
            : System.nanoTime() + Duration.parse("PT" + asked.toUpperCase()).toNanos();
    long first = Long.getLong("kvorum.sim.first", 1_000_000);
    List<Scenario> scenarios =
        Arrays.stream(System.getProperty("kvorum.sim.scenario", "").split(","))
            .filter(s -> !s.isBlank())
            .map(Scenario::valueOf)
            .toList();
    List<Scenario> cycle = scenarios.isEmpty() ? List.of(Scenario.values()) : scenarios;
    List<String> found = new ArrayList<>();
    long ran = 0;
    long started = System.nanoTime();
    try (PlantedBug.Planting planted = plantAsked()) {
      for (long seed = first; ran < seeds && System.nanoTime() < until; seed++, ran++) {
        Scenario scenario = cycle.get((int) (ran % cycle.size()));
        Simulation.Result result = Simulation.run(seed, scenario);
        if (!result.passed()) {
          String report = SimulationTest.describe(result);
          found.add(report);
          System.out.println(report);
        }
        if ((ran + 1) % 1000 == 0) {
          System.out.printf(
              "hunt: %d seeds in %d s, %d failing%n",
              ran + 1, (System.nanoTime() - started) / 1_000_000_000, found.size());
        }
      }
    }
    System.out.printf(
        "hunt over: %d seeds from %d in %d s, %d failing%s%n",
        ran,
        first,
        (System.nanoTime() - started) / 1_000_000_000,
        found.size(),
        found.isEmpty() ? "" : ":\n" + String.join("\n\n", found));
  }

  /** Plants the {@link PlantedBug} {@code -Dkvorum.sim.plant} names, if it names one. */
  static PlantedBug.Planting plantAsked() {
    String plant = System.getProperty("kvorum.sim.plant");
    return plant == null ? () -> {} : PlantedBug.plant(PlantedBug.valueOf(plant));
  }
}
