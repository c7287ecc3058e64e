package io.kvorum.node.server;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads and the monotonic time a node runs on. Every executor a node's components use comes
 * from here, through {@link NodeResources}, and every reading of elapsed time that decides
 * something (a deadline, a back-off, a settle time) from {@link #nanoTime}: production's platform
 * threads and {@link System#nanoTime}, or a simulation's single thread in virtual time (the tests'
 * simulator), which runs the node's storage work, timers and own threads as seeded events.
 *
 * <p>Contract: executors run what they are given eventually and in order per executor, or refuse it
 * with {@link java.util.concurrent.RejectedExecutionException} (a full storage queue, a stopped
 * executor); scheduled tasks run no earlier than their delay in {@link #nanoTime}'s time.
 */
public interface Scheduling {
  /**
   * The storage threads: {@code threads} threads named {@code name}1, {@code name}2, … behind a
   * queue of {@code queue} tasks, refusing a task at once when it is full.
   */
  ExecutorService storage(String name, int threads, int queue);

  /** A thread of {@code name} for a component's work, immediate or scheduled. */
  ScheduledExecutorService thread(String name);

  /** Monotonic time, nanoseconds from an arbitrary origin. */
  long nanoTime();

  /** Uniform in [0, 1): the node's chance (the jitter of back-offs); seeded in a simulation. */
  double random();

  /**
   * Whether a node on this scheduling may start threads these executors do not run: Netty's event
   * loops, Resilience4j's timer of circuit breakers. Not in a simulation, where every task must be
   * the scheduler's.
   */
  default boolean platformThreads() {
    return true;
  }

  /** Production's: platform daemon threads and {@link System#nanoTime}. */
  Scheduling PLATFORM =
      new Scheduling() {
        @Override
        public ExecutorService storage(String name, int threads, int queue) {
          return new ThreadPoolExecutor(
              threads,
              threads,
              0,
              TimeUnit.MILLISECONDS,
              new ArrayBlockingQueue<>(queue),
              Thread.ofPlatform().name(name, 1).daemon().factory(),
              new ThreadPoolExecutor.AbortPolicy());
        }

        @Override
        public ScheduledExecutorService thread(String name) {
          return Executors.newSingleThreadScheduledExecutor(
              Thread.ofPlatform().name(name).daemon().factory());
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public double random() {
          return ThreadLocalRandom.current().nextDouble();
        }
      };
}
