package io.kvorum.node.testing;

import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler in virtual time whose tasks run only when the test says, on the test's thread: {@link
 * #runReady} runs what is due now (and what that queues for now), {@link #advance} moves the clock
 * forward, running each task at its time, in time order (ties in the order queued). {@link
 * #nanoTime} is its clock, to give the code under test as its monotonic clock. Tasks given to
 * {@link #execute} are due now. Not for tasks that wait: nothing else runs meanwhile.
 */
public final class ManualScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long now = 1_000_000_000L;
  private long queued;
  private boolean shutdown;

  /** The virtual clock, in nanoseconds. */
  public synchronized long nanoTime() {
    return now;
  }

  /** Runs every task due by now, including those the tasks run queue for now. */
  public void runReady() {
    advanceTo(nanoTime());
  }

  /** Moves the clock forward by {@code step}, running each task that falls due on the way. */
  public void advance(Duration step) {
    advanceTo(nanoTime() + step.toNanos());
  }

  private void advanceTo(long target) {
    while (true) {
      Task next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.due > target) {
          now = target;
          return;
        }
        queue.poll();
        now = Math.max(now, next.due);
      }
      next.run();
    }
  }

  private synchronized Task add(Runnable action, long delayNanos, long periodNanos) {
    if (shutdown) {
      throw new java.util.concurrent.RejectedExecutionException("shut down");
    }
    Task task = new Task(action, now + Math.max(0, delayNanos), periodNanos, queued++);
    queue.add(task);
    return task;
  }

  private synchronized void again(Task task) {
    if (!shutdown) {
      queue.add(new Task(task, now + task.period, queued++));
    }
  }

  @Override
  public void execute(Runnable command) {
    add(command, 0, 0);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(command, unit.toNanos(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("not used by the code under test");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(command, unit.toNanos(initialDelay), unit.toNanos(delay));
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    queue.clear();
    return List.of();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }

  /** A task and its time; a periodic one queues its next run after each run (a fixed delay). */
  private final class Task implements ScheduledFuture<Object>, Runnable {
    private final Runnable action;
    private final long due;
    private final long period;
    private final long order;
    // Shared by the runs of a periodic task, so that cancelling any cancels the next.
    private final boolean[] cancelled;
    private boolean done;

    Task(Runnable action, long due, long period, long order) {
      this.action = action;
      this.due = due;
      this.period = period;
      this.order = order;
      this.cancelled = new boolean[1];
    }

    Task(Task previous, long due, long order) {
      this.action = previous.action;
      this.due = due;
      this.period = previous.period;
      this.order = order;
      this.cancelled = previous.cancelled;
    }

    @Override
    public void run() {
      if (cancelled[0]) {
        return;
      }
      action.run();
      if (period > 0) {
        again(this);
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      Task that = (Task) other;
      return due != that.due ? Long.compare(due, that.due) : Long.compare(order, that.order);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean was = !cancelled[0] && !done;
      cancelled[0] = true;
      return was;
    }

    @Override
    public boolean isCancelled() {
      return cancelled[0];
    }

    @Override
    public boolean isDone() {
      return done || cancelled[0];
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("a task in virtual time is not waited for");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return get();
    }
  }
}
