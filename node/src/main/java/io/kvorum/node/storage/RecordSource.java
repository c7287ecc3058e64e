package io.kvorum.node.storage;

import io.kvorum.node.core.Entry;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The records of a database no node has open (a snapshot, a stopped node's data), read once in key
 * order, as {@code kvorum-node load} streams them. Used by one thread; close it when done.
 */
public interface RecordSource extends AutoCloseable {
  /** The directory read. */
  Path directory();

  /** About how many records {@link #forEach} gives (tombstones and expired values included). */
  long estimatedRecords();

  /**
   * Gives {@code each} every record in key order, tombstones and expired values included: either
   * may hide an older value of the same key in another node's snapshot. An exception {@code each}
   * throws ends the reading and is thrown on.
   *
   * @throws io.kvorum.node.core.StorageException if a file cannot be read or a record is corrupt
   */
  void forEach(Consumer<Entry> each);

  @Override
  void close();
}
