package io.kvorum.node.testing;

import io.kvorum.node.core.Failures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for a future in a test, with the failure as an assertion error that says what. */
public final class Futures {
  private Futures() {}

  /** The future's value; fails the test if it fails or takes longer than {@code wait}. */
  public static <T> T await(CompletableFuture<T> future, Duration wait) {
    try {
      return future.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the call failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (TimeoutException e) {
      throw new AssertionError("the call did not complete within " + wait, e);
    }
  }

  /**
   * Why the future failed, unwrapped; fails the test if it succeeds or takes longer than {@code
   * wait}.
   */
  public static Throwable failure(CompletableFuture<?> future, Duration wait) {
    try {
      future.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the call succeeded");
    } catch (ExecutionException e) {
      return Failures.unwrap(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (TimeoutException e) {
      throw new AssertionError("the call did not complete within " + wait, e);
    }
  }
}
