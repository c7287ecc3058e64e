package io.kvorum.node.storage;

import io.kvorum.node.core.FailureStreak;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The runs of a sweep on a timer ({@link PurgeSweeper}, {@code consensus.PaxosSweeper}): one at a
 * time (a run asked for while one is under way is skipped), and a sweep that fails at every
 * interval (the disk is full) logs when it starts failing and when it works again, not every time.
 */
public final class SweepRuns {
  private final Logger log;
  private final String name;
  private final String doneMessage;
  private final AtomicBoolean running = new AtomicBoolean();
  private final FailureStreak failures = new FailureStreak();

  /**
   * @param name what the log calls the sweep, e.g. "the purge sweep"
   * @param doneMessage the line logged after a run that removed something, with one {@code {}} for
   *     the count
   */
  public SweepRuns(Logger log, String name, String doneMessage) {
    this.log = log;
    this.name = name;
    this.doneMessage = doneMessage;
  }

  /**
   * Runs {@code sweep} unless a run is under way.
   *
   * @return what the run removed; 0 if it was skipped
   */
  public CompletableFuture<Long> run(Supplier<CompletableFuture<Long>> sweep) {
    if (!running.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(0L);
    }
    CompletableFuture<Long> run;
    try {
      run = sweep.get();
    } catch (RuntimeException e) {
      run = CompletableFuture.failedFuture(e);
    }
    return run.whenComplete(
        (removed, error) -> {
          running.set(false);
          if (error != null) {
            if (failures.failed(error)) {
              log.warn(
                  "{} failed: {}; it runs again at every interval, repeats are not logged until it"
                      + " works again",
                  name,
                  error.toString());
            }
            return;
          }
          if (failures.succeeded()) {
            log.info("{} works again", name);
          }
          if (removed > 0) {
            log.info(doneMessage, removed);
          }
        });
  }
}
