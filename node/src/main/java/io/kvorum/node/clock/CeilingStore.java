package io.kvorum.node.clock;

/**
 * Durable storage of one number: an upper bound on the physical time of every version the clock has
 * issued. Only {@link HybridLogicalClock} calls it, from one thread at a time.
 */
public interface CeilingStore {
  /** The stored ceiling in Unix milliseconds, or 0 if none was ever stored. */
  long load();

  /**
   * Stores {@code ceilingMillis} durably before returning (it survives a crash right after).
   *
   * @throws io.kvorum.node.core.StorageException if it cannot: of kind {@code NO_SPACE} when the
   *     disk is full. Then the previous ceiling stays stored.
   */
  void store(long ceilingMillis);
}
