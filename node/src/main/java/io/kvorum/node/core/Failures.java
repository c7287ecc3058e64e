package io.kvorum.node.core;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Getting at what actually went wrong behind the wrappers of asynchronous code. */
public final class Failures {
  private Failures() {}

  /** The cause behind {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** The message of the innermost cause, for one-line reports. */
  public static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }
}
