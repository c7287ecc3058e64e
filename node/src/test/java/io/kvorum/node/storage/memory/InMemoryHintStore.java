package io.kvorum.node.storage.memory;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.HintStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** A {@link HintStore} on the heap, for tests; operations complete on the calling thread. */
public final class InMemoryHintStore implements HintStore {
  private static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;
  private final ConcurrentSkipListMap<byte[], Hint> hints = new ConcurrentSkipListMap<>(ORDER);
  private final AtomicLong sequence = new AtomicLong();

  @Override
  public CompletableFuture<Void> add(NodeId target, Key key, Record record, long createdAtMillis) {
    byte[] id = id(target, createdAtMillis, sequence.incrementAndGet());
    hints.put(id, new Hint(id, target, key, record, createdAtMillis));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<List<Hint>> oldest(NodeId target, int limit) {
    List<Hint> found = new ArrayList<>();
    for (Map.Entry<byte[], Hint> e : hints.tailMap(id(target, 0, 0)).entrySet()) {
      if (!e.getValue().target().equals(target) || found.size() >= limit) {
        break;
      }
      found.add(e.getValue());
    }
    return CompletableFuture.completedFuture(found);
  }

  @Override
  public CompletableFuture<Void> remove(List<Hint> delivered) {
    delivered.forEach(h -> hints.remove(h.id()));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public long pending(NodeId target) {
    return hints.values().stream().filter(h -> h.target().equals(target)).count();
  }

  @Override
  public Set<NodeId> targets() {
    return Collections.unmodifiableSortedSet(
        hints.values().stream().map(Hint::target).collect(Collectors.toCollection(TreeSet::new)));
  }

  private static byte[] id(NodeId target, long createdAtMillis, long sequence) {
    byte[] name = target.value().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + name.length + 2 * Long.BYTES)
        .put((byte) name.length)
        .put(name)
        .putLong(createdAtMillis)
        .putLong(sequence)
        .array();
  }
}
