package io.kvorum.node.storage;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The changes a node's storage applied, in the order they arrived (SPEC §12): every record a put or
 * a batch offered (a client write, a hint, read repair, anti-entropy, a load), written in the same
 * atomic batch as the record itself, except the records a membership change streams ({@link
 * StorageEngine#putAllStreamed}). Each change carries a stamp: unique and increasing in arrival
 * order on this node, near the node's wall clock (Unix milliseconds in the high 48 bits, as a
 * {@link io.kvorum.node.core.Version}), so stamps of different nodes compare within their clocks'
 * offset.
 *
 * <p>Contract: a page is complete up to its {@link Page#closed} stamp: no change stamped at or
 * below it that falls in the range is missing from the page or arrives later, whatever writes run
 * concurrently. Changes older than the retention are purged; a read whose position lies before what
 * was purged learns it from {@link Page#purgedBefore}. Calls never block the caller.
 */
public interface ChangeLog {
  /**
   * The log of an engine that captures no changes: every page empty and closed for good, so that a
   * feed reading it waits for nothing from it.
   */
  ChangeLog NONE =
      new ChangeLog() {
        @Override
        public CompletableFuture<List<Page>> readAll(List<Read> reads) {
          return CompletableFuture.completedFuture(
              reads.stream().map(r -> new Page(List.of(), Long.MAX_VALUE, 0, false)).toList());
        }

        @Override
        public CompletableFuture<Void> purge(long before) {
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean captures() {
          return false;
        }
      };

  /**
   * Several reads at once, answered in their order, in one trip to the storage, within one {@link
   * ChangeBudget} together. A read the budget leaves nothing for is answered with an empty page
   * closed at its {@code after} and {@code more} set ({@link Read#deferred}): its reader asks again
   * at once.
   */
  CompletableFuture<List<Page>> readAll(List<Read> reads);

  /** Removes the changes stamped before {@code before}. */
  CompletableFuture<Void> purge(long before);

  /** Whether this log captures changes at all. */
  default boolean captures() {
    return true;
  }

  /**
   * A read of the log: the changes of keys in {@code range} stamped after {@code after}, at most
   * {@code limit} of them.
   */
  record Read(KeyRange range, long after, int limit) {
    public Read {
      Objects.requireNonNull(range, "range");
      if (limit < 1) {
        throw new IllegalArgumentException("a read of changes asks for at least one: " + limit);
      }
    }

    /** The answer to this read when the reads it came with took all a call may return. */
    public Page deferred(long purgedBefore) {
      return new Page(List.of(), after, purgedBefore, true);
    }
  }

  /**
   * One change: {@code record} arrived for {@code key} at {@code stamp}.
   *
   * @param stamp this node's arrival stamp
   * @param key the key
   * @param record the record as it arrived, with its own version
   */
  record Change(long stamp, Key key, Record record) {}

  /**
   * What one read found.
   *
   * @param changes the changes in stamp order
   * @param closed the page is complete up to this stamp: the next read starts after it
   * @param purgedBefore changes stamped before this were purged (0: none yet)
   * @param more whether the log holds more after {@code closed} already (read again at once)
   */
  record Page(List<Change> changes, long closed, long purgedBefore, boolean more) {}
}
