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
 * A storage engine that hands every call to another one: the base of the decorators, which override
 * only the calls they change (as Guava's {@code Forwarding*} classes).
 */
public abstract class ForwardingStorageEngine implements StorageEngine {
  protected final StorageEngine delegate;

  protected ForwardingStorageEngine(StorageEngine delegate) {
    this.delegate = delegate;
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    return delegate.get(key);
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
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return delegate.putAllStreamed(entries);
  }

  @Override
  public ChangeLog changes() {
    return delegate.changes();
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
  public boolean syncWal() {
    return delegate.syncWal();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
