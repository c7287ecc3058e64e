package io.kvorum.node.membership;

import io.kvorum.node.core.Failures;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where membership work runs, and how it waits without a thread waiting (an event loop never waits;
 * a simulator runs every task of a node on one thread). Three executors, given by the node:
 *
 * <ul>
 *   <li>{@link #io}, one thread ({@code kvorum-membership-io}): every adoption and proposal of a
 *       cluster state, each of which writes the state file. One at a time, so the listeners of
 *       {@link Membership} see the states in the order they were adopted.
 *   <li>{@link #worker}, one thread ({@code kvorum-membership}): the steps of the change this node
 *       drives, of its streams, of the ownership sweep and of a join's request, each a short task
 *       between two waits (it may write a small file). A drive and a sweep take turns ({@link
 *       #inTurn}), as they did when each held the worker thread until it ended.
 *   <li>the scheduler ({@code kvorum-timer-1}): pauses and deadlines, whose tasks only complete a
 *       future; what follows is handed on to {@link #io} or {@link #worker}.
 * </ul>
 *
 * <p>Time is the monotonic clock the node gives ({@code System::nanoTime}; a simulator's virtual
 * one): a pause ends, and a deadline passes, once that clock says so, the scheduler being asked to
 * wake then. Nothing here reads the system clock or uses the JDK's own delay thread, so a scheduler
 * that runs its tasks in virtual time drives every pause and deadline of the package. After {@link
 * #close}, the pauses and deadlines still pending fail with {@link IllegalStateException} "the node
 * is closing", and new ones fail so at once. Thread-safe.
 */
final class Execution implements AutoCloseable {
  private final ScheduledExecutorService scheduler;
  private final LongSupplier nanoTime;
  private final Executor io;
  private final Executor worker;
  private final Set<Wake> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  // The end of the last job given to inTurn: the next one starts after it.
  private CompletableFuture<Void> lastJob = CompletableFuture.completedFuture(null);

  /** A task on the scheduler for {@code owner}, cancelled once {@code owner} completes. */
  private record Wake(ScheduledFuture<?> task, CompletableFuture<?> owner) {}

  Execution(
      ScheduledExecutorService scheduler, LongSupplier nanoTime, Executor io, Executor worker) {
    this.scheduler = scheduler;
    this.nanoTime = nanoTime;
    this.io = io;
    this.worker = worker;
  }

  /** The thread of cluster states: adoptions and proposals, in order. */
  Executor io() {
    return io;
  }

  /** The thread of the steps of drives, streams, sweeps and joins. */
  Executor worker() {
    return worker;
  }

  /** {@code task}'s value, {@code task} run on {@link #io}; failed as it fails, or if refused. */
  <T> CompletableFuture<T> onIo(Supplier<T> task) {
    return on(io, () -> CompletableFuture.completedFuture(task.get()));
  }

  /** The future {@code step} returns, {@code step} run on {@link #worker}. */
  <T> CompletableFuture<T> onWorker(Supplier<CompletableFuture<T>> step) {
    return on(worker, step);
  }

  /** The monotonic clock, in nanoseconds: for elapsed times only. */
  long nanoTime() {
    return nanoTime.getAsLong();
  }

  /** Whether {@link #close} was called: the node is stopping, its membership work with it. */
  boolean closed() {
    return closed;
  }

  /**
   * Completes, on the scheduler's thread, once the monotonic clock has advanced by {@code length}.
   */
  CompletableFuture<Void> pause(Duration length) {
    CompletableFuture<Void> over = new CompletableFuture<>();
    at(nanoTime() + length.toNanos(), over, () -> over.complete(null));
    return over;
  }

  /**
   * {@code work}'s outcome (its failure unwrapped), or a failure with {@link TimeoutException} if
   * it has none once the monotonic clock advanced by {@code limit}; {@code work} is then cancelled.
   */
  <T> CompletableFuture<T> within(CompletableFuture<T> work, Duration limit) {
    if (work.isDone()) {
      return work;
    }
    CompletableFuture<T> outcome = new CompletableFuture<>();
    work.whenComplete(
        (value, error) -> {
          if (error == null) {
            outcome.complete(value);
          } else {
            outcome.completeExceptionally(Failures.unwrap(error));
          }
        });
    at(
        nanoTime() + limit.toNanos(),
        outcome,
        () -> {
          if (outcome.completeExceptionally(
              new TimeoutException("no outcome within " + limit.toMillis() + " ms"))) {
            work.cancel(false);
          }
        });
    return outcome;
  }

  /**
   * Runs {@code action} once the monotonic clock reads {@code until} or later, unless {@code owner}
   * completed first. The scheduler is asked to wake at that time and the clock is read again then:
   * a wake that comes early (a scheduler on another clock) waits again for the rest.
   */
  private void at(long until, CompletableFuture<?> owner, Runnable action) {
    if (owner.isDone()) {
      return;
    }
    long left = until - nanoTime();
    if (left <= 0) {
      action.run();
      return;
    }
    if (closed) {
      owner.completeExceptionally(closing());
      return;
    }
    ScheduledFuture<?> task;
    try {
      task = scheduler.schedule(() -> at(until, owner, action), left, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      owner.completeExceptionally(e);
      return;
    }
    Wake wake = new Wake(task, owner);
    pending.add(wake);
    // A task cancelled is dropped by the scheduler's shutdown, so a stopping node does not wait
    // for the deadline of a batch that has long come.
    owner.whenComplete((value, error) -> forget(wake));
    if (closed) {
      // close() may have walked the pending wakes before this one was added.
      owner.completeExceptionally(closing());
    }
  }

  private void forget(Wake wake) {
    pending.remove(wake);
    wake.task().cancel(false);
  }

  /** Fails every pause and deadline pending, and those asked for from now on. */
  @Override
  public void close() {
    closed = true;
    for (Wake wake : pending) {
      wake.owner().completeExceptionally(closing());
    }
  }

  private static IllegalStateException closing() {
    return new IllegalStateException("the node is closing");
  }

  /**
   * The future {@code job} returns, {@code job} started on {@link #worker} once every job given
   * here before has ended, however it ended. The change this node drives and its ownership sweep
   * are such jobs: they never overlap, so a sweep never drops, under the owners of the epoch it
   * sweeps, what this node's stream of a newer change has just stored here.
   */
  synchronized <T> CompletableFuture<T> inTurn(Supplier<CompletableFuture<T>> job) {
    CompletableFuture<T> result = lastJob.thenComposeAsync(previousEnded -> job.get(), worker);
    lastJob = result.handle((value, error) -> null);
    return result;
  }

  /**
   * Runs {@code step} on {@link #worker}, and again each time the future it returns completes with
   * true. The future returned completes once a step's future completes with false, or fails as the
   * first step that fails (or that the worker refuses: the node stopping). A step starts only once
   * the previous one's future completed; a long loop costs no stack.
   */
  CompletableFuture<Void> loop(Supplier<CompletableFuture<Boolean>> step) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    next(step, result);
    return result;
  }

  private void next(Supplier<CompletableFuture<Boolean>> step, CompletableFuture<Void> result) {
    on(worker, step)
        .whenComplete(
            (again, error) -> {
              if (error != null) {
                result.completeExceptionally(Failures.unwrap(error));
              } else if (again) {
                // Handed to the worker, not called here: each step starts on a fresh stack.
                next(step, result);
              } else {
                result.complete(null);
              }
            });
  }

  /**
   * The future {@code step} returns, {@code step} run on {@code executor}; failed if {@code step}
   * throws or {@code executor} refuses it (a node stopping).
   */
  private static <T> CompletableFuture<T> on(
      Executor executor, Supplier<CompletableFuture<T>> step) {
    return CompletableFuture.<Void>completedFuture(null)
        .thenComposeAsync(unused -> step.get(), executor);
  }
}
