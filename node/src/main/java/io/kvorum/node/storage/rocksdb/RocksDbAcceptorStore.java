package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.consensus.AcceptorState;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.AcceptorStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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
import org.rocksdb.WriteOptions;

/**
 * Acceptor states in their own column family ({@code paxos}) of the node's RocksDB, under the raw
 * key, as {@link AcceptorStateCodec} encodes them; the ballot floor under the empty key (never a
 * record's key), as its version's 8 bytes. Every changed state, and the floor, is written with the
 * write-ahead log synced, whatever {@code --sync-writes} says: a promise or an acceptance forgotten
 * after a crash could let two different values be chosen. A step reads, transitions and writes
 * under one of 64 locks striped by key, so steps of one key never interleave; a purge holds the
 * locks of the keys it visits. They run on the storage executor.
 */
final class RocksDbAcceptorStore implements AcceptorStore {
  private static final int STRIPES = 64;
  static final byte[] FLOOR_KEY = new byte[0];

  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final ColumnFamilyHandle states;
  private final WriteOptions synced;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
  private volatile Version floor;

  RocksDbAcceptorStore(
      RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle states, WriteOptions synced) {
    this.engine = engine;
    this.db = db;
    this.states = states;
    this.synced = synced;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
    try {
      byte[] stored = db.get(states, FLOOR_KEY);
      this.floor = stored == null ? Version.ZERO : new Version(ByteBuffer.wrap(stored).getLong());
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("read the paxos floor", null, e);
    }
  }

  @Override
  public CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    return engine.submit(
        "paxos step",
        key,
        () -> {
          ReentrantLock lock = lock(key);
          lock.lock();
          try {
            // The floor is read under the key's lock: a purge raised it before it took the lock.
            AcceptorState before = read(key).floored(floor);
            AcceptorState.Transition next = transition.apply(before);
            if (!next.state().equals(before)) {
              db.put(states, synced, key.bytes(), AcceptorStateCodec.encode(next.state()));
            }
            return next.reply();
          } finally {
            lock.unlock();
          }
        });
  }

  @Override
  public CompletableFuture<AcceptorState> state(Key key) {
    return engine.submit("paxos state", key, () -> read(key));
  }

  @Override
  public Version floor() {
    return floor;
  }

  @Override
  public CompletableFuture<Version> raiseFloor(Version raised) {
    return engine.submit(
        "raise the paxos floor",
        null,
        () -> {
          synchronized (this) {
            if (raised.compareTo(floor) > 0) {
              byte[] bytes = ByteBuffer.allocate(Long.BYTES).putLong(raised.value()).array();
              db.put(states, synced, FLOOR_KEY, bytes);
              floor = raised;
            }
            return floor;
          }
        });
  }

  @Override
  public CompletableFuture<List<Key>> keys(Optional<Key> after, int limit) {
    return engine.submit(
        "paxos keys",
        after.orElse(null),
        () -> {
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
    return engine.submit(
        "paxos purge",
        null,
        () -> {
          TreeSet<Integer> stripes = new TreeSet<>();
          stored.keySet().forEach(k -> stripes.add(stripe(k)));
          List<ReentrantLock> held = new ArrayList<>(stripes.size());
          try (WriteBatch batch = new WriteBatch()) {
            for (int stripe : stripes) {
              locks[stripe].lock();
              held.add(locks[stripe]);
            }
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
              db.write(engine.options().writes, batch);
            }
            return removed;
          } finally {
            held.forEach(ReentrantLock::unlock);
          }
        });
  }

  private ReentrantLock lock(Key key) {
    return locks[stripe(key)];
  }

  private static int stripe(Key key) {
    return Math.floorMod(key.hashCode(), STRIPES);
  }

  private AcceptorState read(Key key) throws RocksDBException {
    byte[] stored = db.get(states, key.bytes());
    return stored == null ? AcceptorState.EMPTY : AcceptorStateCodec.decode(stored);
  }
}
