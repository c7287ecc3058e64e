package io.kvorum.bench.report;

import java.util.List;

/**
 * The runs of one load phase: a sweep (short steps at rising rates until one misses the limit, then
 * the highest passing rate held for the full duration) or a hold (one run at a given rate).
 *
 * @param phase {@code put}, {@code get}, {@code mixed} or {@code range}
 * @param steps the sweep's steps in the order run, and any long run that failed
 * @param sustained the long run that passed, or null when none did
 * @param notes what else happened, e.g. the settle pauses, one sentence each
 */
public record Sweep(String phase, List<Run> steps, Run sustained, List<String> notes) {
  public Sweep {
    steps = List.copyOf(steps);
    notes = List.copyOf(notes);
  }

  /** The run to quote when none passed: the last one tried. */
  public Run lastTried() {
    return steps.isEmpty() ? null : steps.get(steps.size() - 1);
  }
}
