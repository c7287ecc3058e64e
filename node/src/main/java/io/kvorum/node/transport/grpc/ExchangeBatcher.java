package io.kvorum.node.transport.grpc;

import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one side of an Exchange stream sends, in batches: the caller's requests ({@link
 * ReplicaStream}) and the server's answers ({@link ServedExchange}) leave the same way.
 *
 * <p>Items come from any thread into a lock-free queue; the first one into an idle queue schedules
 * one drain on the stream's event loop, which takes everything queued by then and sends it as one
 * message of at most {@link ProtoMapping#BATCH_ENTRIES} items and about {@link
 * ProtoMapping#BATCH_BYTES} (a single larger item travels alone), and keeps sending while the side
 * says its stream is ready; what is left waits for the side's next {@link #flush}. No timer, no
 * linger: a lone item leaves on the next turn of the loop, and under load the batches grow by
 * themselves. Beyond its node in the queue, an item costs no task, lock or wake-up of its own: one
 * drain serves all that are queued.
 *
 * <p>Threads: {@link #add}, {@link #onLoop} and {@link #execute} may be called from any thread;
 * everything else runs on the loop, which owns the items taken off the queue without locks.
 *
 * @param <T> what the side sends: a request waiting for its answer, or an answer
 */
final class ExchangeBatcher<T> {
  /**
   * What differs between the two sides: what is kept of an item, what is sent and when. Called on
   * the loop, but for {@link #stopped}.
   */
  interface Side<T> {
    /** Takes an item off the queue to be sent; false if the side failed it instead. */
    default boolean take(T item) {
      return true;
    }

    /**
     * Asked of an unsent item before it is batched: true drops it (nobody waits for it any more).
     */
    default boolean drop(T item) {
      return false;
    }

    /** How many bytes the item takes in a batch. */
    int size(T item);

    /** Whether the stream takes another message now (its flow control). */
    boolean ready();

    /** Sends one batch of items, in order; the list is reused once this returns. */
    void send(List<T> batch);

    /** A drain has taken what was queued; the side flushes now or later. */
    void drained();

    /** The loop refused a task: it has stopped, and nothing will be sent; from any thread. */
    default void stopped(List<T> queued) {}
  }

  private final EventLoop loop;
  private final Side<T> side;
  private final Queue<T> queued = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drain;

  // Owned by the event loop.
  private final ArrayDeque<T> unsent = new ArrayDeque<>();
  private final List<T> batch = new ArrayList<>(ProtoMapping.BATCH_ENTRIES);

  ExchangeBatcher(EventLoop loop, Side<T> side) {
    this.loop = loop;
    this.side = side;
  }

  /** Queues an item to be sent; from any thread. */
  void add(T item) {
    queued.add(item);
    if (drainScheduled.compareAndSet(false, true)) {
      // Always a task, even on the loop: what else is queued during this turn joins the batch.
      execute(drainTask);
    }
  }

  /** Runs {@code task} on the loop: at once if called there, else as a task. */
  void onLoop(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
    } else {
      execute(task);
    }
  }

  /** Runs {@code task} on the loop as a task of its own, even if called there. */
  void execute(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      // The loop has stopped, and with it the stream: nothing queued will be sent.
      List<T> lost = new ArrayList<>();
      for (T item = queued.poll(); item != null; item = queued.poll()) {
        lost.add(item);
      }
      side.stopped(lost);
    }
  }

  private void drain() {
    // Cleared before taking, so an item queued after this point schedules another drain.
    drainScheduled.set(false);
    for (T item = queued.poll(); item != null; item = queued.poll()) {
      if (side.take(item)) {
        unsent.add(item);
      }
    }
    side.drained();
  }

  /** Whether items taken off the queue wait to be sent. */
  boolean hasUnsent() {
    return !unsent.isEmpty();
  }

  /** Forgets the items waiting to be sent (the side fails them); returns how many there were. */
  int clearUnsent() {
    int count = unsent.size();
    unsent.clear();
    return count;
  }

  /** Sends the waiting items, a batch per message, while the side's stream is ready. */
  void flush() {
    while (!unsent.isEmpty() && side.ready()) {
      nextBatch();
      if (!batch.isEmpty()) {
        try {
          side.send(batch);
        } finally {
          batch.clear();
        }
      }
    }
  }

  /** Moves the next batch's items from the unsent ones into {@link #batch}. */
  private void nextBatch() {
    long bytes = 0;
    for (T item = unsent.peek(); item != null; item = unsent.peek()) {
      if (side.drop(item)) {
        unsent.poll();
        continue;
      }
      int size = side.size(item);
      int count = batch.size();
      if (count > 0
          && (count == ProtoMapping.BATCH_ENTRIES || bytes + size > ProtoMapping.BATCH_BYTES)) {
        return;
      }
      unsent.poll();
      batch.add(item);
      bytes += size;
    }
  }
}
