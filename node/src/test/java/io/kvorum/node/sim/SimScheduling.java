package io.kvorum.node.sim;

import io.kvorum.node.server.Scheduling;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A simulated node's threads and time: every executor its {@code NodeResources} asks for is a
 * {@link SimExecutor} of its incarnation, its monotonic time is the simulation's virtual time, its
 * chance the simulation's seeded one, and it starts no thread of its own (no Netty event loops, no
 * breaker timer).
 */
final class SimScheduling implements Scheduling {
  /** The queue of a simulated thread that is not the storage pool's: as good as unbounded. */
  private static final int UNBOUNDED = 1 << 20;

  private final SimScheduler scheduler;
  private final SimScheduler.Owner incarnation;

  SimScheduling(SimScheduler scheduler, SimScheduler.Owner incarnation) {
    this.scheduler = scheduler;
    this.incarnation = incarnation;
  }

  @Override
  public ExecutorService storage(String name, int threads, int queue) {
    return new SimExecutor(scheduler, incarnation, queue + threads, threads == 1);
  }

  @Override
  public ScheduledExecutorService thread(String name) {
    return new SimExecutor(scheduler, incarnation, UNBOUNDED, true);
  }

  @Override
  public long nanoTime() {
    return scheduler.now();
  }

  @Override
  public double random() {
    return scheduler.random().nextDouble();
  }

  @Override
  public boolean platformThreads() {
    return false;
  }
}
