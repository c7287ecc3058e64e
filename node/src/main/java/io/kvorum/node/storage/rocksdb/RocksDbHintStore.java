package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.HintStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Hints in their own column family of the node's RocksDB, written through the same write-ahead log
 * as records. Key: target id (length-prefixed), creation time and a sequence number, so a target's
 * hints are contiguous and oldest first; value: the key (length-prefixed) and the record in {@link
 * RecordCodec}'s form. Hints are plain puts: the column family has no merge operator.
 */
final class RocksDbHintStore implements HintStore {
  private final RocksDbStorageEngine engine;
  private final RocksDB db;
  private final ColumnFamilyHandle hints;
  private final Map<NodeId, AtomicLong> pending = new ConcurrentHashMap<>();
  private final AtomicLong sequence = new AtomicLong(ThreadLocalRandom.current().nextLong() >>> 1);
  private final Object removals = new Object();

  RocksDbHintStore(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle hints) {
    this.engine = engine;
    this.db = db;
    this.hints = hints;
    countExisting();
  }

  private void countExisting() {
    try (RocksIterator it = db.newIterator(hints)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        counter(target(it.key())).incrementAndGet();
      }
    }
  }

  @Override
  public CompletableFuture<Void> add(NodeId target, Key key, Record record, long createdAtMillis) {
    byte[] id = id(target, createdAtMillis, sequence.incrementAndGet());
    int header = Integer.BYTES + key.size();
    byte[] value = new byte[header + RecordCodec.encodedSize(record)];
    ByteBuffer.wrap(value).putInt(key.size()).put(key.bytes());
    RecordCodec.encodeInto(record, value, header);
    return engine.submit(
        "store hint",
        key,
        () -> {
          db.put(hints, engine.options().writes, id, value);
          counter(target).incrementAndGet();
          return null;
        });
  }

  @Override
  public CompletableFuture<List<Hint>> oldest(NodeId target, int limit) {
    byte[] prefix = prefix(target);
    return engine.submit(
        "read hints",
        null,
        () -> {
          List<Hint> found = new ArrayList<>();
          try (RocksIterator it = db.newIterator(hints)) {
            for (it.seek(prefix); it.isValid() && found.size() < limit; it.next()) {
              byte[] id = it.key();
              if (!startsWith(id, prefix)) {
                break;
              }
              found.add(decode(target, id, it.value()));
            }
            it.status();
          }
          return found;
        });
  }

  @Override
  public CompletableFuture<Void> remove(List<Hint> delivered) {
    return engine.submit(
        "remove hints",
        null,
        () -> {
          // Delivery and expiry may remove the same hints at once: checking and deleting must be
          // one step, or both removals count the same hint off its target's pending count.
          synchronized (removals) {
            try (WriteBatch batch = new WriteBatch()) {
              List<NodeId> removed = new ArrayList<>();
              Set<ByteBuffer> seen = new HashSet<>();
              for (Hint hint : delivered) {
                if (seen.add(ByteBuffer.wrap(hint.id())) && db.get(hints, hint.id()) != null) {
                  batch.delete(hints, hint.id());
                  removed.add(hint.target());
                }
              }
              db.write(engine.options().writes, batch);
              removed.forEach(target -> counter(target).decrementAndGet());
            }
          }
          return null;
        });
  }

  @Override
  public long pending(NodeId target) {
    AtomicLong count = pending.get(target);
    return count == null ? 0 : count.get();
  }

  @Override
  public Set<NodeId> targets() {
    return Collections.unmodifiableSortedSet(
        pending.entrySet().stream()
            .filter(e -> e.getValue().get() > 0)
            .map(Map.Entry::getKey)
            .collect(Collectors.toCollection(TreeSet::new)));
  }

  private AtomicLong counter(NodeId target) {
    return pending.computeIfAbsent(target, t -> new AtomicLong());
  }

  private static byte[] prefix(NodeId target) {
    byte[] id = target.value().getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + id.length).put((byte) id.length).put(id).array();
  }

  private static byte[] id(NodeId target, long createdAtMillis, long sequence) {
    byte[] prefix = prefix(target);
    return ByteBuffer.allocate(prefix.length + 2 * Long.BYTES)
        .put(prefix)
        .putLong(createdAtMillis)
        .putLong(sequence)
        .array();
  }

  private static NodeId target(byte[] id) {
    return NodeId.of(new String(id, 1, id[0] & 0xFF, StandardCharsets.UTF_8));
  }

  private static Hint decode(NodeId target, byte[] id, byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    byte[] key = new byte[buffer.getInt()];
    buffer.get(key);
    Record record = RecordCodec.decode(value, buffer.position(), value.length - buffer.position());
    long createdAt = ByteBuffer.wrap(id).getLong(id.length - 2 * Long.BYTES);
    return new Hint(id, target, Key.of(key), record, createdAt);
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
