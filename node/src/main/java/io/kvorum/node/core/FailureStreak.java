package io.kvorum.node.core;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Tells which reports of a failure that repeats (a task on a timer, a write path while the disk is
 * full) are worth a log line: the first failure of a streak, a failure of another kind than the one
 * before, and the first success after failures; not every repetition. Thread-safe.
 */
public final class FailureStreak {
  /** The kind of the failure of the current streak, or null while things work. */
  private final AtomicReference<String> failing = new AtomicReference<>();

  /** Reports a failure; true if it starts a streak or changes its kind, so it should be logged. */
  public boolean failed(Throwable error) {
    String kind = kind(Failures.unwrap(error));
    return !kind.equals(failing.getAndSet(kind));
  }

  /** Reports a success; true if it ends a streak of failures, so it should be logged. */
  public boolean succeeded() {
    return failing.get() != null && failing.getAndSet(null) != null;
  }

  /** Whether the last report was a failure. */
  public boolean failing() {
    return failing.get() != null;
  }

  private static String kind(Throwable error) {
    FailureKind kind = FailureKind.of(error);
    // Two different bugs are two different failures.
    return kind == FailureKind.UNEXPECTED ? error.getClass().getName() : kind.name();
  }
}
