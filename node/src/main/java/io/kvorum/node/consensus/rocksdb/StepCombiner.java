package io.kvorum.node.consensus.rocksdb;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.storage.rocksdb.RocksDbColumn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Group commit for acceptor steps, as {@code WriteCombiner} is for records: steps that arrive while
 * a group is being written are applied together by the next group, one write-ahead-log append and
 * one sync for all of them, before any of their replies is released.
 *
 * <p>Steps wait in a lock-free queue. At most one drain runs on the storage executor at a time,
 * scheduled by the step that finds none scheduled, so a step arriving at an idle node is written at
 * once. A drain takes up to {@link #MAX_GROUP} steps, holds the locks of their keys (in stripe
 * order, as a purge does), applies each transition to the state its key's earlier steps in the
 * group left (or the stored one, raised to the floor), writes every changed state in one synced
 * batch, and then completes the steps; a failure fails the whole group, none of whose states was
 * written. A group of steps that all wait for a later sync ({@link #submit}'s {@code synced} false)
 * is written without one. At most {@link RocksDbColumn#maxQueued} steps wait; beyond that a step
 * fails at once with {@link OverloadedException} (503), as a put does.
 */
final class StepCombiner {
  static final int MAX_GROUP = 256;

  /** How a drain reads, locks and encodes what the store keeps. */
  interface States {
    /** The stored state of {@code key} as the floor now shows it (under the key's lock). */
    AcceptorState floored(RocksDB db, ColumnFamilyHandle states, Key key) throws RocksDBException;

    /** Takes the locks of {@code keys}, in an order every locker keeps; returns what to release. */
    Runnable lock(List<Key> keys);
  }

  private record Step(
      Key key,
      Function<AcceptorState, AcceptorState.Transition> transition,
      boolean synced,
      CompletableFuture<Reply> reply) {}

  private final RocksDbColumn column;
  private final States states;
  private final ConcurrentLinkedQueue<Step> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final LongAdder groups = new LongAdder();

  StepCombiner(RocksDbColumn column, States states) {
    this.column = column;
    this.states = states;
  }

  /**
   * Queues one step; completes with its reply once its new state is durable or, if not {@code
   * synced}, once it is in the write-ahead log (durable at the log's next sync).
   */
  CompletableFuture<Reply> submit(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition, boolean synced) {
    if (queued.incrementAndGet() > column.maxQueued()) {
      queued.decrementAndGet();
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }
    Step step = new Step(key, transition, synced, new CompletableFuture<>());
    queue.add(step);
    schedule();
    return step.reply();
  }

  /** The synced batches written so far (each one sync for its whole group). */
  long groups() {
    return groups.sum();
  }

  private void schedule() {
    if (!scheduled.compareAndSet(false, true)) {
      return; // the drain under way takes this step, or sees it when it re-checks the queue
    }
    List<Step> group = new ArrayList<>();
    column
        .submit("paxos step", null, (db, handle) -> write(db, handle, take(group)))
        .whenComplete(
            (replies, error) -> {
              if (error != null) {
                // Refused before it ran (a full executor) takes nothing: fail what waits.
                List<Step> failed = group.isEmpty() ? take(group) : group;
                failed.forEach(s -> s.reply().completeExceptionally(error));
              } else {
                for (int i = 0; i < group.size(); i++) {
                  group.get(i).reply().complete(replies.get(i));
                }
              }
              scheduled.set(false);
              // A step queued after the take but before the flag was cleared scheduled nothing.
              if (!queue.isEmpty()) {
                schedule();
              }
            });
  }

  private List<Step> take(List<Step> into) {
    while (into.size() < MAX_GROUP) {
      Step step = queue.poll();
      if (step == null) {
        break;
      }
      queued.decrementAndGet();
      into.add(step);
    }
    return into;
  }

  private List<Reply> write(RocksDB db, ColumnFamilyHandle handle, List<Step> group)
      throws RocksDBException {
    Runnable unlock = states.lock(group.stream().map(Step::key).toList());
    try (WriteBatch batch = new WriteBatch()) {
      Map<Key, AcceptorState> now = new HashMap<>();
      List<Reply> replies = new ArrayList<>(group.size());
      for (Step step : group) {
        AcceptorState before = now.get(step.key());
        if (before == null) {
          before = states.floored(db, handle, step.key());
        }
        AcceptorState.Transition next = step.transition().apply(before);
        if (!next.state().equals(before)) {
          batch.put(handle, step.key().bytes(), AcceptorStateCodec.encode(next.state()));
        }
        now.put(step.key(), next.state());
        replies.add(next.reply());
      }
      if (batch.count() > 0) {
        boolean sync = group.stream().anyMatch(Step::synced);
        db.write(sync ? column.syncedWrites() : column.unsyncedWrites(), batch);
        groups.increment();
      }
      return replies;
    } finally {
      unlock.run();
    }
  }
}
