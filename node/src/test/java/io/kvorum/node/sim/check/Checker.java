package io.kvorum.node.sim.check;

import java.util.List;

/**
 * One guarantee checked over a run's recording. Implementations are pure (they read the recording
 * and nothing else, and never modify it), deterministic (the same recording gives the same
 * violations in the same order, so a failing seed replays to the same report) and near-linear in
 * the recording's size unless they say otherwise.
 */
public interface Checker {
  /** The name violations carry: the checker's simple class name. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** Every violation of the guarantee in {@code recording}, empty when it holds. */
  List<Violation> check(Recording recording);
}
