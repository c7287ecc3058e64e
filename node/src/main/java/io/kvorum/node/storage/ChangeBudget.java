package io.kvorum.node.storage;

import io.kvorum.node.storage.ChangeLog.Change;

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
   * Whether a read that has examined {@code examinedByRead} entries and found {@code found} changes
   * may examine another.
   */
  public boolean mayExamine(int examinedByRead, int found) {
    return examinedByRead < READ_EXAMINED && examined < CALL_EXAMINED && (found == 0 || !spent());
  }

  /** Counts one examined entry. */
  public void examined() {
    examined++;
  }

  /**
   * Whether {@code change} fits in the answer, counting it if so: always when the page holding it
   * is empty ({@code found == 0}), so that a change larger than the budget still comes alone.
   */
  public boolean take(Change change, int found) {
    long size = change.key().size() + (long) change.record().value().length;
    if (found > 0 && bytes + size > CALL_BYTES) {
      return false;
    }
    bytes += size;
    return true;
  }
}
