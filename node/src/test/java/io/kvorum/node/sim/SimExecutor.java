package io.kvorum.node.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One of a simulated node's threads (a storage thread pool, its timer, a component's own thread) as
 * events of the {@link SimScheduler}, owned by the node's incarnation. A task given to {@link
 * #execute} runs after a small seeded delay (so the tasks of different threads interleave in every
 * order the seeds try) but, on a single thread, never before a task given earlier to it (a pool of
 * several threads may run its tasks in any order, as the real one does). A bounded executor (the
 * storage threads' queue) refuses a task when that many wait, as the real one does.
 */
final class SimExecutor extends AbstractExecutorService implements ScheduledExecutorService {
  /** The longest seeded delay before an immediate task runs. */
  static final long MAX_HOP_NANOS = 20_000;

  private final SimScheduler scheduler;
  private final SimScheduler.Owner owner;
  private final int capacity;
  private final boolean ordered;
  private long lastTime;
  private int waiting;
  private boolean shutdown;

  /**
   * @param capacity the tasks that may wait at once; beyond that {@link #execute} refuses
   * @param ordered whether immediate tasks run in the order given (one thread), or in any order (a
   *     pool of several)
   */
  SimExecutor(SimScheduler scheduler, SimScheduler.Owner owner, int capacity, boolean ordered) {
    this.scheduler = scheduler;
    this.owner = owner;
    this.capacity = capacity;
    this.ordered = ordered;
  }

  @Override
  public void execute(Runnable task) {
    if (shutdown) {
      throw new RejectedExecutionException("the simulated thread is stopped");
    }
    if (waiting >= capacity) {
      throw new RejectedExecutionException("the simulated queue is full (" + capacity + ")");
    }
    waiting++;
    long at = scheduler.now() + scheduler.random().nextLong(MAX_HOP_NANOS + 1);
    if (ordered) {
      at = Math.max(at, lastTime);
      lastTime = at;
    }
    scheduler.at(
        at,
        owner,
        () -> {
          waiting--;
          task.run();
        });
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return schedule(
        () -> {
          command.run();
          return null;
        },
        delay,
        unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Scheduled<V> task = new Scheduled<>(callable, 0);
    task.arm(unit.toNanos(delay));
    return task;
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return periodic(command, initialDelay, unit.toNanos(period), unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    // One thread that never waits: the delay after a run equals the period from its start.
    return periodic(command, initialDelay, unit.toNanos(delay), unit);
  }

  private ScheduledFuture<?> periodic(
      Runnable command, long initialDelay, long periodNanos, TimeUnit unit) {
    if (periodNanos <= 0) {
      throw new IllegalArgumentException("a period must be positive");
    }
    Scheduled<Void> task =
        new Scheduled<>(
            () -> {
              command.run();
              return null;
            },
            periodNanos);
    task.arm(unit.toNanos(initialDelay));
    return task;
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    return new ArrayList<>();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown;
  }

  /** Returns at once: nothing runs on another thread to wait for. */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }

  /** A task at a time to come, once or every period, as a future its caller may cancel. */
  private final class Scheduled<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {
    private final long periodNanos;
    private SimScheduler.Event event;

    Scheduled(Callable<V> callable, long periodNanos) {
      super(callable);
      this.periodNanos = periodNanos;
    }

    void arm(long delayNanos) {
      if (shutdown) {
        throw new RejectedExecutionException("the simulated thread is stopped");
      }
      event = scheduler.after(delayNanos, owner, this);
    }

    @Override
    public void run() {
      if (shutdown || isCancelled()) {
        return;
      }
      if (periodNanos == 0) {
        super.run();
      } else if (runAndReset() && !shutdown) {
        arm(periodNanos);
      }
    }

    @Override
    public boolean isPeriodic() {
      return periodNanos > 0;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (event != null) {
        event.cancelled = true;
      }
      return super.cancel(false);
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(event.time - scheduler.now(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
