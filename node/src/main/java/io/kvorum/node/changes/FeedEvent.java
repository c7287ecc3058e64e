package io.kvorum.node.changes;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;

/** What a change feed sends its consumer (SPEC §12), each with the cursor to resume after it. */
public sealed interface FeedEvent {
  /** Resuming from this cursor misses nothing that followed this event. */
  long cursor();

  /**
   * A change: {@code record} (a value, or a tombstone for a delete) is the newest version of {@code
   * key} this feed has sent.
   */
  record Changed(Key key, Record record, long cursor) implements FeedEvent {}

  /** Nothing stamped at or before {@code cursor} remains to be sent. */
  record Progress(long cursor) implements FeedEvent {}
}
