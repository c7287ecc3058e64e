package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.consensus.AcceptorState;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.storage.AcceptorStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * Acceptor states in their own column family ({@code paxos}) of the node's RocksDB, under the raw
 * key, as {@link AcceptorStateCodec} encodes them. Every changed state is written with the
 * write-ahead log synced, whatever {@code --sync-writes} says: a promise or an acceptance forgotten
 * after a crash could let two different values be chosen. A step reads, transitions and writes
 * under one of 64 locks striped by key, so steps of one key never interleave; they run on the
 * storage executor.
 */
final class RocksDbAcceptorStore implements AcceptorStore {
  private static final int STRIPES = 64;

  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final ColumnFamilyHandle states;
  private final WriteOptions synced;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  RocksDbAcceptorStore(
      RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle states, WriteOptions synced) {
    this.engine = engine;
    this.db = db;
    this.states = states;
    this.synced = synced;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  @Override
  public CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    return engine.submit(
        "paxos step",
        key,
        () -> {
          ReentrantLock lock = locks[Math.floorMod(key.hashCode(), STRIPES)];
          lock.lock();
          try {
            AcceptorState before = read(key);
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

  private AcceptorState read(Key key) throws org.rocksdb.RocksDBException {
    byte[] stored = db.get(states, key.bytes());
    return stored == null ? AcceptorState.EMPTY : AcceptorStateCodec.decode(stored);
  }
}
