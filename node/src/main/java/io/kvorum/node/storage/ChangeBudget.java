package io.kvorum.node.storage;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.ChangeLog.Change;
import io.kvorum.node.storage.ChangeLog.Page;
import io.kvorum.node.storage.ChangeLog.Read;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the reads of one {@link ChangeLog#readAll} call may still do together: examine at most
 * {@link #READ_EXAMINED} log entries each and {@link #CALL_EXAMINED} in all, so that no call holds
 * a storage thread long whatever its ranges; and return at most {@link #CALL_BYTES} of keys and
 * values in all, or one change larger than that alone, so that the answer fits in an inter-node
 * message (the largest value plus a megabyte). A log's read stops where the budget says, and
 * answers what it found with {@code more} set. Confined to the call's thread.
 */
public final class ChangeBudget {
  /** Log entries one read examines at most. */
  public static final int READ_EXAMINED = 4096;

  /** Log entries all the reads of one call examine at most. */
  public static final int CALL_EXAMINED = 4 * READ_EXAMINED;

  /** Bytes of keys and values all the reads of one call return at most, but for one change. */
  public static final long CALL_BYTES = 1 << 20;

  private int examined;
  private long bytes;

  /** Whether the budget is spent: the reads left are answered empty, to be asked again. */
  public boolean spent() {
    return examined >= CALL_EXAMINED || bytes >= CALL_BYTES;
  }

  /**
   * One read within this budget: the log offers its entries after the read's position in stamp
   * order ({@link Reading#next}) until the reading has all it may take, then answers its page
   * ({@link Reading#page}).
   */
  public Reading reading(Read read) {
    return new Reading(read);
  }

  /** One read's page in the making. */
  public final class Reading {
    private final Read read;
    private final List<Change> changes = new ArrayList<>();
    private long last;
    private int examined;
    private boolean more;

    private Reading(Read read) {
      this.read = read;
      this.last = read.after();
    }

    /**
     * Offers the log's next entry, {@code key} stamped {@code stamp}, whose record is read only if
     * the read wants it: false once the page holds all it may (the limit, or the budget), the entry
     * offered not taken.
     */
    public boolean next(long stamp, Key key, Supplier<Record> record) {
      if (changes.size() == read.limit() || !mayExamine()) {
        more = true;
        return false;
      }
      if (read.range().contains(key)) {
        Change change = new Change(stamp, key, record.get());
        if (!take(change)) {
          more = true;
          return false;
        }
        changes.add(change);
      }
      examined++;
      ChangeBudget.this.examined++;
      last = stamp;
      return true;
    }

    /**
     * The page: complete up to {@code closed} if the log offered every entry up to it, else up to
     * the last entry examined, with more to read at once.
     */
    public Page page(long closed, long purgedBefore) {
      return new Page(changes, more ? last : closed, purgedBefore, more);
    }

    private boolean mayExamine() {
      return examined < READ_EXAMINED
          && ChangeBudget.this.examined < CALL_EXAMINED
          && (changes.isEmpty() || !spent());
    }

    /**
     * Whether {@code change} fits in the answer, counting it if so: always when this page is empty,
     * so that a change larger than the budget still comes alone.
     */
    private boolean take(Change change) {
      long size = change.key().size() + (long) change.record().value().length;
      if (!changes.isEmpty() && bytes + size > CALL_BYTES) {
        return false;
      }
      bytes += size;
      return true;
    }
  }
}
