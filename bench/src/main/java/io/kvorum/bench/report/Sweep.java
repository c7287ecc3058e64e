package io.kvorum.bench.report;

import java.util.List;

/**
 * The runs of one load phase: a sweep (short steps at rising rates until one misses the limit, then
 * the highest passing rate held for the full duration) or holds (one run at each given rate, in
 * turn, whatever the verdict of the one before).
 *
 * @param phase {@code put}, {@code get}, {@code mixed} or {@code range}
 * @param steps the sweep's steps in the order run, and any long run that failed; none for holds
 * @param sustained the long run that passed (of holds: the highest rate that passed), or null when
 *     none did
 * @param holds every held run at the given rates, in the order run; none for a sweep
 * @param notes what else happened, e.g. the settle pauses, one sentence each
 */
public record Sweep(
    String phase, List<Run> steps, Run sustained, List<Run> holds, List<String> notes) {
  public Sweep {
    steps = List.copyOf(steps);
    holds = List.copyOf(holds);
    notes = List.copyOf(notes);
  }

  /** A sweep (no holds). */
  public Sweep(String phase, List<Run> steps, Run sustained, List<String> notes) {
    this(phase, steps, sustained, List.of(), notes);
  }

  /** The run to quote when none passed: the last one tried. */
  public Run lastTried() {
    return !holds.isEmpty()
        ? holds.get(holds.size() - 1)
        : steps.isEmpty() ? null : steps.get(steps.size() - 1);
  }

  /** The long runs: every hold, or the sweep's long run (passed or not). */
  public List<Run> longRuns() {
    if (!holds.isEmpty()) {
      return holds;
    }
    return sustained != null ? List.of(sustained) : List.of();
  }
}
