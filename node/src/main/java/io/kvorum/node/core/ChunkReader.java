package io.kvorum.node.core;

import java.util.concurrent.CompletableFuture;

/**
 * A file open for reading chunk by chunk off the caller's thread (a snapshot file a backup copies).
 */
public interface ChunkReader extends AutoCloseable {
  /** Its size in bytes; -1 if unknown. */
  long size();

  /** Up to {@code max} more bytes; none at the end. */
  CompletableFuture<byte[]> next(int max);

  @Override
  void close();
}
