package io.kvorum.node.sim.check;

/** How an operation ended, as its client saw it. */
public enum Outcome {
  /**
   * The operation succeeded: a write applied (201/202), a read answered (200, or 404 for absent).
   */
  OK,
  /**
   * A definite no: nothing was applied (412 for a failed condition, 400, 413, 507 for a full disk).
   */
  REFUSED,
  /** No definite answer (504, a timeout, a lost answer): a write may or may not have applied. */
  UNKNOWN
}
