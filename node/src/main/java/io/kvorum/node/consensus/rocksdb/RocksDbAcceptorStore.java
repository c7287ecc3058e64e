package io.kvorum.node.consensus.rocksdb;

import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RocksDbColumn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Acceptor states in their own column family ({@code paxos}) of the node's RocksDB, under the raw
 * key, as {@link AcceptorStateCodec} encodes them; the ballot floor under the empty key (never a
 * record's key), as its version's 8 bytes. Every changed state, and the floor, is written with the
 * write-ahead log synced, whatever {@code --sync-writes} says: a promise or an acceptance forgotten
 * after a crash could let two different values be chosen. Steps are group-committed ({@link
 * StepCombiner}): the steps waiting when a group starts are applied in order and written in one
 * synced batch, so a burst of prepares and accepts costs one sync, not one each. A group holds the
 * locks (64, striped by key) of the keys it steps, so steps of one key never interleave with a
 * purge, which holds the locks of the keys it visits. All of it runs on the storage executor
 * ({@link RocksDbColumn}), never on an event loop.
 */
public final class RocksDbAcceptorStore implements AcceptorStore {
  private static final int STRIPES = 64;
  static final byte[] FLOOR_KEY = new byte[0];

  private final RocksDbColumn column;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
  private final StepCombiner steps;
  private volatile Version floor;

  /**
   * The acceptors' states in {@code column}, their floor read now.
   *
   * @throws io.kvorum.node.core.StorageException if the floor cannot be read
   */
  public RocksDbAcceptorStore(RocksDbColumn column) {
    this.column = column;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
    this.steps =
        new StepCombiner(
            column,
            new StepCombiner.States() {
              @Override
              public AcceptorState floored(RocksDB db, ColumnFamilyHandle states, Key key)
                  throws RocksDBException {
                // Read under the key's lock: a purge raised the floor before it took the lock.
                return read(db, states, key).floored(floor);
              }

              @Override
              public Runnable lock(List<Key> keys) {
                return lockAll(keys);
              }
            });
    this.floor =
        column.now(
            "read the paxos floor",
            null,
            (db, states) -> {
              byte[] stored = db.get(states, FLOOR_KEY);
              return stored == null ? Version.ZERO : new Version(ByteBuffer.wrap(stored).getLong());
            });
  }

  /** Queued for the next group commit ({@link StepCombiner}): one synced batch for every step. */
  @Override
  public CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    return steps.submit(key, transition, true);
  }

  /**
   * Queued for the next group commit as {@link #step}, written without a sync of its own if every
   * step of its group allows it: the records' write-ahead log is this one, so the next synced write
   * of a record makes it durable.
   */
  @Override
  public CompletableFuture<Reply> stepBeforeSync(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    return steps.submit(key, transition, false);
  }

  /** A synced write of nothing: every write before it in the log is durable once it completes. */
  @Override
  public CompletableFuture<Void> sync() {
    return column.submit(
        "sync the paxos states",
        null,
        (db, states) -> {
          try (WriteBatch nothing = new WriteBatch()) {
            db.write(column.syncedWrites(), nothing);
          }
          return null;
        });
  }

  /** The synced batches the steps were written in so far: one sync each. */
  long groups() {
    return steps.groups();
  }

  @Override
  public CompletableFuture<AcceptorState> state(Key key) {
    return column.submit("paxos state", key, (db, states) -> read(db, states, key));
  }

  @Override
  public Version floor() {
    return floor;
  }

  @Override
  public CompletableFuture<Version> raiseFloor(Version raised) {
    return column.submit(
        "raise the paxos floor",
        null,
        (db, states) -> {
          synchronized (this) {
            if (raised.compareTo(floor) > 0) {
              byte[] bytes = ByteBuffer.allocate(Long.BYTES).putLong(raised.value()).array();
              db.put(states, column.syncedWrites(), FLOOR_KEY, bytes);
              floor = raised;
            }
            return floor;
          }
        });
  }

  @Override
  public CompletableFuture<List<Key>> keys(Optional<Key> after, int limit) {
    return column.submit(
        "paxos keys",
        after.orElse(null),
        (db, states) -> {
          List<Key> keys = new ArrayList<>(limit);
          try (RocksIterator it = db.newIterator(states)) {
            if (after.isPresent()) {
              it.seek(after.get().bytes());
            } else {
              it.seekToFirst();
            }
            for (; it.isValid() && keys.size() < limit; it.next()) {
              byte[] key = it.key();
              if (key.length > 0 && !after.map(a -> Key.of(key).equals(a)).orElse(false)) {
                keys.add(Key.of(key));
              }
            }
            it.status();
          }
          return keys;
        });
  }

  /**
   * Holds the locks of every key of {@code stored} (in stripe order, so two purges never deadlock),
   * then deletes the purgeable states in one batch: a step of one of these keys waits, and then
   * reads the state as the batch left it.
   */
  @Override
  public CompletableFuture<Integer> purge(Map<Key, Optional<Record>> stored) {
    return column.submit(
        "paxos purge",
        null,
        (db, states) -> {
          Runnable unlock = lockAll(stored.keySet());
          try (WriteBatch batch = new WriteBatch()) {
            Version now = floor;
            int removed = 0;
            for (Map.Entry<Key, Optional<Record>> entry : stored.entrySet()) {
              byte[] state = db.get(states, entry.getKey().bytes());
              if (state != null
                  && AcceptorStateCodec.decode(state).purgeable(now, entry.getValue())) {
                batch.delete(states, entry.getKey().bytes());
                removed++;
              }
            }
            if (removed > 0) {
              // Unsynced: a delete lost in a crash brings back a state that was purgeable.
              db.write(column.writes(), batch);
            }
            return removed;
          } finally {
            unlock.run();
          }
        });
  }

  /**
   * Holds the locks of every key of {@code keys}, in stripe order (so that two holders never
   * deadlock); returns what releases them.
   */
  private Runnable lockAll(Collection<Key> keys) {
    TreeSet<Integer> stripes = new TreeSet<>();
    keys.forEach(k -> stripes.add(stripe(k)));
    List<ReentrantLock> held = new ArrayList<>(stripes.size());
    for (int stripe : stripes) {
      locks[stripe].lock();
      held.add(locks[stripe]);
    }
    return () -> held.forEach(ReentrantLock::unlock);
  }

  private static int stripe(Key key) {
    return Math.floorMod(key.hashCode(), STRIPES);
  }

  private static AcceptorState read(RocksDB db, ColumnFamilyHandle states, Key key)
      throws RocksDBException {
    byte[] stored = db.get(states, key.bytes());
    return stored == null ? AcceptorState.EMPTY : AcceptorStateCodec.decode(stored);
  }
}
