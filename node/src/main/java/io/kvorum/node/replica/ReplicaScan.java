package io.kvorum.node.replica;

import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import java.util.Objects;

/**
 * A scan of a replica's own records in {@code range}: its first batch at most {@code firstBatch}
 * entries (a range's limit), each next one at most twice the last; 0 leaves the batches to the
 * serving node.
 */
public record ReplicaScan(KeyRange range, int firstBatch) {
  public ReplicaScan {
    Objects.requireNonNull(range, "range");
    if (firstBatch < 0) {
      throw new IllegalArgumentException("firstBatch must not be negative, got " + firstBatch);
    }
  }

  /** The whole range, in the serving node's batches. */
  public static ReplicaScan of(KeyRange range) {
    return new ReplicaScan(range, 0);
  }

  /** This scan of {@code storage}, a replica's own. */
  ScanCursor open(StorageEngine storage) {
    return paced(storage.scan(range));
  }

  /** {@code cursor}, a scan of {@link #range}, in this scan's batches. */
  public ScanCursor paced(ScanCursor cursor) {
    return firstBatch == 0 ? cursor : cursor.growingFrom(firstBatch);
  }
}
