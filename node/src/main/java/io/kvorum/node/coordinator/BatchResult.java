package io.kvorum.node.coordinator;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Record;
import java.util.Optional;

/**
 * What one item of a batch came to, as that item alone would have: a get's live record (empty when
 * absent, deleted or expired), a put's or delete's record as written (its version is the item's
 * ETag), or the failure of that item.
 *
 * @param record the record, when the item succeeded
 * @param failure why it failed, or null
 */
public record BatchResult(Optional<Record> record, Throwable failure) {
  static BatchResult of(Optional<Record> record, Throwable failure) {
    return failure == null
        ? new BatchResult(record, null)
        : new BatchResult(Optional.empty(), Failures.unwrap(failure));
  }

  public boolean failed() {
    return failure != null;
  }
}
