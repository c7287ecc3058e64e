package io.kvorum.node.storage;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Answers each {@link #get} from memory on the calling thread when the engine can ({@link
 * #getFromMemory}), and hands it to the engine's executor only when the answer needs the disk. A
 * read served from a memtable or a cached block costs a few microseconds; handing it to another
 * thread and back costs two thread wake-ups, tens of microseconds. Everything else is the engine's.
 */
public final class MemoryFirstStorageEngine implements StorageEngine {
  private final StorageEngine delegate;

  public MemoryFirstStorageEngine(StorageEngine delegate) {
    this.delegate = delegate;
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    Optional<Optional<Record>> known = delegate.getFromMemory(key);
    return known.isPresent() ? CompletableFuture.completedFuture(known.get()) : delegate.get(key);
  }

  @Override
  public Optional<Optional<Record>> getFromMemory(Key key) {
    return delegate.getFromMemory(key);
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    return delegate.put(key, record);
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    return delegate.putAll(entries);
  }

  @Override
  public ScanCursor scan(KeyRange range) {
    return delegate.scan(range);
  }

  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return delegate.purge(deadBeforeMillis, limit);
  }

  @Override
  public CompletableFuture<Boolean> drop(Key key, Version version) {
    return delegate.drop(key, version);
  }

  @Override
  public StorageStats stats() {
    return delegate.stats();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
