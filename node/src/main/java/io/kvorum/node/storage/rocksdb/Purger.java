package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.StorageEngine.PurgeResult;
import io.kvorum.node.storage.rocksdb.WriteCombiner.EncodedRecord;
import io.kvorum.node.storage.rocksdb.WriteCombiner.Write;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.StampedLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The removal of dead records: the {@code deaths} column family indexes tombstones and expiring
 * values by the time they die (its keys are that time, 8 bytes big-endian, then the record's key),
 * so a purge visits only records that may be due instead of the whole key space. A dead record
 * whose key still holds a Paxos acceptor state ({@link RocksDbAcceptorStore}) is kept, and looked
 * at again by a later purge: that state may have been kept because this record did not yet
 * supersede it, and once forgotten it counts on this record to mask what it masked (see {@link
 * io.kvorum.node.consensus.round.AcceptorState#purgeable}).
 *
 * <p>A purge reads records and then deletes those still dead. Record writes hold the shared side of
 * the gate while they write; a purge chunk, and a drop, hold the exclusive side, so no write lands
 * in between and is deleted with the record it replaced. Callers run these methods on the engine's
 * executor, under its open-engine guard.
 */
final class Purger {
  private static final int PURGE_CHUNK = 64;
  private static final byte[] NOTHING = new byte[0];

  private final RocksDB db;
  private final ColumnFamilyHandle records;
  private final ColumnFamilyHandle deaths;
  private final ColumnFamilyHandle paxos;
  private final ReadOptions pointReads;
  private final WriteOptions writes;
  private final WriteOptions syncedWrites;
  private final StampedLock gate = new StampedLock();

  /**
   * @param families the engine's column families, in the order {@link RocksDbOptions} opens them:
   *     records, deaths, hints, paxos
   */
  Purger(
      RocksDB db,
      List<ColumnFamilyHandle> families,
      ReadOptions pointReads,
      WriteOptions writes,
      WriteOptions syncedWrites) {
    this.db = db;
    this.records = families.get(0);
    this.deaths = families.get(1);
    this.paxos = families.get(3);
    this.pointReads = pointReads;
    this.writes = writes;
    this.syncedWrites = syncedWrites;
  }

  /** The records of {@code group} and their entries in the index, as one batch. */
  WriteBatch batch(List<Write> group) throws RocksDBException {
    long bytes = 0;
    for (Write w : group) {
      bytes += w.bytes + w.records.size() * (Long.BYTES + 16L);
    }
    WriteBatch batch = new WriteBatch((int) Math.min(bytes + 64, Integer.MAX_VALUE));
    try {
      for (Write w : group) {
        for (EncodedRecord r : w.records) {
          batch.merge(records, r.key().bytes(), r.bytes());
          index(batch, r);
        }
      }
      return batch;
    } catch (RocksDBException | RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  /** Adds {@code record}'s entry in the index to {@code batch}, if the record ever dies. */
  private void index(WriteBatch batch, EncodedRecord record) throws RocksDBException {
    if (record.diesAtMillis() != Long.MAX_VALUE) {
      batch.put(deaths, deathKey(record.diesAtMillis(), record.key()), NOTHING);
    }
  }

  /** Writes a batch of record writes, never between a purge's read and its delete. */
  void write(WriteBatch batch) throws RocksDBException {
    long stamp = gate.readLock();
    try {
      db.write(writes, batch);
    } finally {
      gate.unlockRead(stamp);
    }
  }

  /**
   * Syncs the write-ahead log with a synced write of nothing ({@link WalSyncs}), under the
   * exclusive side of the gate: a write at once, from an event loop, finds the gate taken and is
   * queued instead of waiting behind the fsync in RocksDB's write thread.
   */
  void syncLog() throws RocksDBException {
    long stamp = gate.writeLock();
    try (WriteBatch nothing = new WriteBatch()) {
      db.write(syncedWrites, nothing);
    } finally {
      gate.unlockWrite(stamp);
    }
  }

  /**
   * Writes {@code batch} with {@code options} if the gate's shared side is free now; false, having
   * written nothing, while a purge or a drop holds it.
   */
  boolean tryWrite(WriteOptions options, WriteBatch batch) throws RocksDBException {
    long stamp = gate.tryReadLock();
    if (stamp == 0) {
      return false;
    }
    try {
      db.write(options, batch);
      return true;
    } finally {
      gate.unlockRead(stamp);
    }
  }

  /**
   * Deletes {@code key}'s record if its version is {@code version}. Under the exclusive side of the
   * gate, as a purge: a write landing between the read and the delete would be deleted with the
   * record.
   */
  boolean drop(Key key, Version version) throws RocksDBException {
    long stamp = gate.writeLock();
    try {
      byte[] stored = db.get(records, pointReads, key.bytes());
      if (stored == null || !RecordCodec.decode(stored).version().equals(version)) {
        return false;
      }
      db.delete(records, writes, key.bytes());
      return true;
    } finally {
      gate.unlockWrite(stamp);
    }
  }

  /** Visits at most {@code limit} index entries due before the cut-off, a chunk at a time. */
  PurgeResult purge(long deadBeforeMillis, int limit) throws RocksDBException {
    int examined = 0;
    int removed = 0;
    try (Slice upper = new Slice(deathKeyPrefix(deadBeforeMillis));
        ReadOptions bounded = new ReadOptions().setIterateUpperBound(upper);
        RocksIterator it = db.newIterator(deaths, bounded)) {
      it.seekToFirst();
      while (it.isValid() && examined < limit) {
        List<byte[]> chunk = new ArrayList<>(PURGE_CHUNK);
        for (; it.isValid() && examined < limit && chunk.size() < PURGE_CHUNK; it.next()) {
          chunk.add(it.key());
          examined++;
        }
        removed += purgeChunk(chunk, deadBeforeMillis);
      }
      it.status();
    }
    return new PurgeResult(examined, removed);
  }

  /**
   * Deletes the records of {@code deathKeys} that are still dead before the cut-off (a newer write
   * may have replaced them) and the index entries themselves. Under the exclusive side of the gate:
   * a write landing between the read and the delete would be deleted with the dead record.
   */
  private int purgeChunk(List<byte[]> deathKeys, long deadBeforeMillis) throws RocksDBException {
    List<byte[]> keys = new ArrayList<>(deathKeys.size());
    for (byte[] deathKey : deathKeys) {
      keys.add(Arrays.copyOfRange(deathKey, Long.BYTES, deathKey.length));
    }
    Set<Key> removed = new HashSet<>();
    long stamp = gate.writeLock();
    try (WriteBatch batch = new WriteBatch()) {
      List<byte[]> stored =
          db.multiGetAsList(pointReads, Collections.nCopies(keys.size(), records), keys);
      List<byte[]> acceptors =
          db.multiGetAsList(pointReads, Collections.nCopies(keys.size(), paxos), keys);
      for (int i = 0; i < keys.size(); i++) {
        byte[] record = stored.get(i);
        batch.delete(deaths, deathKeys.get(i));
        if (record == null || RecordCodec.diesAtMillis(record) >= deadBeforeMillis) {
          continue;
        }
        if (acceptors.get(i) != null) {
          // Out of this sweep's reach (its bound is exclusive), due again in the next one.
          batch.put(deaths, deathKey(deadBeforeMillis, Key.of(keys.get(i))), NOTHING);
        } else if (removed.add(Key.of(keys.get(i)))) {
          batch.delete(records, keys.get(i));
        }
      }
      db.write(writes, batch);
    } finally {
      gate.unlockWrite(stamp);
    }
    return removed.size();
  }

  private static byte[] deathKeyPrefix(long atMillis) {
    return ByteBuffer.allocate(Long.BYTES).putLong(atMillis).array();
  }

  private static byte[] deathKey(long atMillis, Key key) {
    return ByteBuffer.allocate(Long.BYTES + key.size()).putLong(atMillis).put(key.bytes()).array();
  }
}
