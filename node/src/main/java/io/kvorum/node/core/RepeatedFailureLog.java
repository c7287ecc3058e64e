package io.kvorum.node.core;

import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;

/**
 * Logs a failure that repeats (a task on a timer, a write path while the disk is full) once when it
 * starts and once when it ends, instead of at every repetition: a WARN at the first failure, or
 * when the failure changes kind, DEBUG for repeats, an INFO at the first success after failures.
 * Thread-safe.
 */
public final class RepeatedFailureLog {
  private final Logger log;
  private final String what;

  /** The kind of the failure of the current streak, or null while {@link #what} works. */
  private final AtomicReference<String> failing = new AtomicReference<>();

  /**
   * @param log where the lines go
   * @param what what fails, as the subject of "… failed" and "… works again"
   */
  public RepeatedFailureLog(Logger log, String what) {
    this.log = log;
    this.what = what;
  }

  /** Reports a failure; logged unless it repeats the failure of the current streak. */
  public void failed(Throwable error) {
    Throwable cause = Failures.unwrap(error);
    String kind = kind(cause);
    String before = failing.getAndSet(kind);
    if (kind.equals(before)) {
      log.debug("{} failed again: {}", what, cause.toString());
    } else if (cause instanceof KvorumException) {
      // Typed failures say all there is to say in their message.
      log.warn(
          "{} failed: {}; repeats are not logged until it works again", what, cause.toString());
    } else {
      log.warn("{} failed; repeats are not logged until it works again", what, cause);
    }
  }

  /** Reports a success; logged if it ends a streak of failures. */
  public void succeeded() {
    if (failing.get() != null && failing.getAndSet(null) != null) {
      log.info("{} works again", what);
    }
  }

  /** Whether the last report was a failure. */
  public boolean failing() {
    return failing.get() != null;
  }

  private static String kind(Throwable error) {
    return error instanceof StorageException e
        ? StorageException.class.getName() + "/" + e.kind()
        : error.getClass().getName();
  }
}
