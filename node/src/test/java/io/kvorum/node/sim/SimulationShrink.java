package io.kvorum.node.sim;

import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.sim.check.Violation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shrinks a failing seed's schedule: leaves its faults out, a half of them, then a quarter, down to
 * one at a time (delta debugging), keeping every cut after which the seed still fails one of the
 * same checks, and prints the faults left and the command that replays the shrunk run. Skipped
 * unless asked:
 *
 * <pre>
 * ./mvnw -o -pl node test -Dtest=SimulationShrink -Dkvorum.sim.shrink=SEED -Dkvorum.sim.scenario=NAME
 * </pre>
 *
 * Options: {@code -Dkvorum.sim.plant=BUG} (the seed fails with a {@link PlantedBug} planted),
 * {@code -Dkvorum.sim.runs=N} (at most N runs, default 400).
 *
 * <p>A fault left out changes what comes after it (the run's one random stream serves the network,
 * the clients and the faults alike), so the faults of the shrunk run are its own, numbered as
 * drawn: the shrunk seed and its faults are the bug report, replayed exactly by the printed
 * command.
 */
class SimulationShrink {
  @Test
  @Timeout(value = 1, unit = java.util.concurrent.TimeUnit.DAYS)
  void shrink() {
    Long seed = Long.getLong("kvorum.sim.shrink");
    Assumptions.assumeTrue(seed != null, "no -Dkvorum.sim.shrink=SEED given");
    Scenario scenario =
        Scenario.valueOf(System.getProperty("kvorum.sim.scenario", Scenario.EVERYTHING.name()));
    String plant = System.getProperty("kvorum.sim.plant");
    try (PlantedBug.Planting planted = SimulationHunt.plantAsked()) {
      Shrunk shrunk = shrink(seed, scenario, Integer.getInteger("kvorum.sim.runs", 400));
      System.out.println(shrunk.report() + (plant == null ? "" : " -Dkvorum.sim.plant=" + plant));
    }
  }

  /** What a shrink ended with. */
  record Shrunk(
      long seed,
      Scenario scenario,
      int faultsBefore,
      Set<Integer> kept,
      int runs,
      Simulation.Result run) {
    String report() {
      return String.format(
              "seed %d of %s shrunk from %d faults to %d in %d runs: %s%n",
              seed, scenario, faultsBefore, kept.size(), runs, checks(run))
          + String.join("\n", run.log().stream().filter(line -> line.contains(" #")).toList())
          + "\n  replay: ./mvnw -o -pl node test -Dtest=SimulationTest#replay -Dkvorum.sim.seed="
          + seed
          + " -Dkvorum.sim.scenario="
          + scenario
          + " -Dkvorum.sim.faults="
          + (kept.isEmpty()
              ? "none"
              : kept.stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
  }

  /**
   * Shrinks {@code seed}, which must fail, in at most {@code maxRuns} runs.
   *
   * @throws IllegalArgumentException if the seed passes
   */
  static Shrunk shrink(long seed, Scenario scenario, int maxRuns) {
    Simulation.Result first = Simulation.run(seed, scenario);
    if (first.passed()) {
      throw new IllegalArgumentException("seed " + seed + " of " + scenario + " passes");
    }
    Set<String> failed = checks(first);
    List<Integer> kept = new ArrayList<>(IntStream.range(0, first.faults()).boxed().toList());
    Simulation.Result last = first;
    int runs = 1;
    int chunk = Math.max(1, kept.size() / 2);
    while (!kept.isEmpty() && runs < maxRuns) {
      boolean cut = false;
      for (int start = 0; start < kept.size() && runs < maxRuns; ) {
        List<Integer> candidate = new ArrayList<>(kept);
        candidate.subList(start, Math.min(kept.size(), start + chunk)).clear();
        Set<Integer> strikes = Set.copyOf(candidate);
        Simulation.Result result = Simulation.run(seed, scenario, strikes::contains);
        runs++;
        if (!result.passed() && checks(result).stream().anyMatch(failed::contains)) {
          kept = candidate;
          last = result;
          cut = true;
        } else {
          start += chunk;
        }
      }
      if (!cut) {
        if (chunk == 1) {
          break;
        }
        chunk = Math.max(1, chunk / 2);
      }
    }
    return new Shrunk(seed, scenario, first.faults(), new TreeSet<>(kept), runs, last);
  }

  /** The checks a run failed. */
  static Set<String> checks(Simulation.Result result) {
    return result.violations().stream()
        .map(Violation::checker)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * The faults a replay strikes: those numbered in {@code numbers} ({@code 3,7,12}; {@code none}
   * for none), or every one when null.
   */
  static IntPredicate strikes(String numbers) {
    if (numbers == null) {
      return number -> true;
    }
    Set<Integer> kept =
        numbers.equals("none")
            ? Set.of()
            : Arrays.stream(numbers.split(","))
                .map(String::trim)
                .map(Integer::valueOf)
                .collect(Collectors.toSet());
    return kept::contains;
  }
}
