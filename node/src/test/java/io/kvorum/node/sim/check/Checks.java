package io.kvorum.node.sim.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every checker over one run's recording: what the simulator calls after each seed.
 *
 * <pre>{@code
 * Checks checks = Checks.standard(Checks.Settings.of(requestTimeoutNanos, slackNanos));
 * List<Violation> violations = checks.run(recorder.build());
 * if (!violations.isEmpty()) fail(Report.render(seed, violations, 20));
 * }</pre>
 */
public final class Checks {
  /** A majority of the three replicas each key has in the simulator. */
  private static final int QUORUM = 2;

  private final List<Checker> checkers;

  /** Runs {@code checkers}, in that order. */
  public Checks(List<Checker> checkers) {
    this.checkers = List.copyOf(checkers);
  }

  /**
   * The parameters of the standard checks.
   *
   * @param requestTimeoutNanos the nodes' request timeout ({@link Deadlines})
   * @param deadlineSlackNanos what an answer may take beyond it ({@link Deadlines})
   * @param limits the bounds of the linearizability search per key
   * @param tolerance the end-state differences {@link Convergence} accepts
   */
  public record Settings(
      long requestTimeoutNanos,
      long deadlineSlackNanos,
      Linearizability.Limits limits,
      Convergence.Tolerance tolerance) {
    public Settings {
      Objects.requireNonNull(limits, "limits");
      Objects.requireNonNull(tolerance, "tolerance");
    }

    /** The default limits, and purged dead records tolerated. */
    public static Settings of(long requestTimeoutNanos, long deadlineSlackNanos) {
      return new Settings(
          requestTimeoutNanos,
          deadlineSlackNanos,
          Linearizability.Limits.DEFAULT,
          Convergence.Tolerance.DEAD_RECORDS);
    }
  }

  /**
   * Every checker of this package: {@link LostWrites}, {@link Resurrection}, {@link
   * ReadYourQuorum}, {@link Convergence}, {@link Linearizability}, {@link OneVersionPerValue},
   * {@link ChosenStaysChosen}, {@link Deadlines}.
   */
  public static Checks standard(Settings settings) {
    return new Checks(
        List.of(
            new LostWrites(),
            new Resurrection(),
            new ReadYourQuorum(),
            new Convergence(settings.tolerance()),
            new Linearizability(settings.limits()),
            new OneVersionPerValue(),
            new ChosenStaysChosen(QUORUM),
            new Deadlines(settings.requestTimeoutNanos(), settings.deadlineSlackNanos())));
  }

  public List<Checker> checkers() {
    return checkers;
  }

  /** Every violation every checker finds in {@code recording}, checker by checker. */
  public List<Violation> run(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    for (Checker checker : checkers) {
      violations.addAll(checker.check(recording));
    }
    return violations;
  }
}
