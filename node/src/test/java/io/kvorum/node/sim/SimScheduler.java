package io.kvorum.node.sim;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * Virtual time and every event of a simulated cluster: the tasks of every node's executors and
 * timers, the deliveries of the network, the clients' requests and the faults. Events run one at a
 * time on the thread that runs the simulation, in the order of their time and, at equal times, of
 * their scheduling; so a seed gives one order of events, the same at every run.
 *
 * <p>Each event may belong to a node's incarnation ({@link Owner}): once that incarnation died (a
 * crash), its events are dropped unrun; while it is paused, its events wait for the end of the
 * pause. Not thread-safe: everything runs on the simulation's thread.
 *
 * <p>With {@code -Dkvorum.sim.trace=FILE}, every event run is written to FILE with its virtual time
 * and where it was scheduled (the calls that scheduled it): two runs of one seed whose trace hashes
 * differ are told apart by diffing their files, the first differing line showing what decided
 * differently.
 */
final class SimScheduler {
  /** Who an event belongs to: a node's incarnation, or nobody (the network, the clients). */
  interface Owner {
    /** Whether the incarnation still lives: its events run. */
    boolean alive();

    /** Until when (virtual nanoseconds) its events wait; not after now when it is not paused. */
    long pausedUntil();
  }

  /** An event's handle: cancelling it keeps it from running. */
  static final class Event implements Comparable<Event> {
    long time;
    final long sequence;
    final Owner owner;
    final Runnable task;
    final String site;
    boolean cancelled;
    boolean ran;

    private Event(long time, long sequence, Owner owner, Runnable task, String site) {
      this.time = time;
      this.sequence = sequence;
      this.owner = owner;
      this.task = task;
      this.site = site;
    }

    @Override
    public int compareTo(Event other) {
      int byTime = Long.compare(time, other.time);
      return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
    }
  }

  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Random random;
  private final long maxEvents;
  private long now;
  private long sequence;
  private long executed;
  private long trace = 1125899906842597L;
  private final PrintWriter sites;

  /**
   * @param seed every choice of the simulation comes from it
   * @param maxEvents a bound on the events one run may execute, against a run that never ends
   */
  SimScheduler(long seed, long maxEvents) {
    this.random = new Random(seed);
    this.maxEvents = maxEvents;
    String file = System.getProperty("kvorum.sim.trace");
    try {
      this.sites = file == null ? null : new PrintWriter(Files.newBufferedWriter(Path.of(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Virtual time, nanoseconds since the simulation began. */
  long now() {
    return now;
  }

  /** The simulation's one source of chance. */
  Random random() {
    return random;
  }

  /** Events executed so far. */
  long executed() {
    return executed;
  }

  /**
   * A hash of the run so far: the time and owner-less order of every event executed. Two runs of
   * one seed have the same; a change of behaviour changes it.
   */
  long traceHash() {
    return trace;
  }

  /** Mixes {@code value} into the trace (what an event decided, for the hash). */
  void trace(long value) {
    trace = 31 * trace + value;
  }

  /** Schedules {@code task} at virtual time {@code time} (not before now). */
  Event at(long time, Owner owner, Runnable task) {
    Event event =
        new Event(Math.max(time, now), sequence++, owner, task, sites == null ? null : site());
    queue.add(event);
    return event;
  }

  /** Schedules {@code task} {@code delayNanos} from now. */
  Event after(long delayNanos, Owner owner, Runnable task) {
    return at(now + Math.max(0, delayNanos), owner, task);
  }

  /**
   * Runs events in order until virtual time would pass {@code until} or none is left; time then
   * stands at {@code until}.
   *
   * @throws IllegalStateException if the run executes more events than its bound
   */
  void runUntil(long until) {
    while (!queue.isEmpty() && queue.peek().time <= until) {
      runNext();
    }
    now = Math.max(now, until);
  }

  /** Whether no event is waiting. */
  boolean idle() {
    return queue.isEmpty();
  }

  private void runNext() {
    Event event = queue.poll();
    if (event.cancelled) {
      return;
    }
    if (event.owner != null) {
      if (!event.owner.alive()) {
        return;
      }
      long pausedUntil = event.owner.pausedUntil();
      if (pausedUntil > event.time) {
        // Keeps its place among the owner's other events: the same sequence, a later time.
        event.time = pausedUntil;
        queue.add(event);
        return;
      }
    }
    now = event.time;
    if (++executed > maxEvents) {
      throw new IllegalStateException(
          "the simulation ran "
              + maxEvents
              + " events without ending (a task rescheduling itself?)");
    }
    trace = 31 * trace + now;
    if (sites != null) {
      sites.println(executed + " " + now + " " + event.site);
    }
    event.ran = true;
    event.task.run();
  }

  /** Ends the run's trace file, if one was asked for. */
  void close() {
    if (sites != null) {
      sites.close();
    }
  }

  /** The calls that schedule an event, outside the scheduler and the JDK. */
  private static String site() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames
                    .filter(
                        f ->
                            !f.getClassName().equals(SimScheduler.class.getName())
                                && !f.getClassName().startsWith("java."))
                    .limit(10)
                    .map(f -> f.getClassName() + ":" + f.getLineNumber())
                    .collect(Collectors.joining(" ")));
  }
}
