package io.kvorum.node.testing;

import io.kvorum.node.clock.CeilingStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock ceiling kept in memory: for clocks of tests that need no disk. Share {@code value}
 * between two stores to play a ceiling that survives a restart.
 */
public record MemoryCeilingStore(AtomicLong value) implements CeilingStore {
  public MemoryCeilingStore() {
    this(new AtomicLong());
  }

  @Override
  public long load() {
    return value.get();
  }

  @Override
  public void store(long ceilingMillis) {
    value.set(ceilingMillis);
  }
}
