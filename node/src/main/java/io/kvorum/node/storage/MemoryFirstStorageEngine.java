package io.kvorum.node.storage;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Answers each {@link #get} from memory on the calling thread when the engine can ({@link
 * #getFromMemory}), and hands it to the engine's executor only when the answer needs the disk. A
 * read served from a memtable or a cached block costs a few microseconds; handing it to another
 * thread and back costs two thread wake-ups, tens of microseconds. Everything else is the engine's.
 */
public final class MemoryFirstStorageEngine extends ForwardingStorageEngine {

  public MemoryFirstStorageEngine(StorageEngine delegate) {
    super(delegate);
  }

  @Override
  public CompletableFuture<Optional<Record>> get(Key key) {
    Optional<Optional<Record>> known = delegate.getFromMemory(key);
    return known.isPresent() ? CompletableFuture.completedFuture(known.get()) : delegate.get(key);
  }
}
