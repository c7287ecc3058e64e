package io.kvorum.node.changes;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog.Change;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The order in which one feed sends the changes it read (SPEC §12). Changes are taken in stamp
 * order once at or below the feed's watermark, and sent once they are also older than the
 * hold-back: the spread of the members' clocks. A change's stamp is its arrival by the clock of the
 * node that logged it, so a write acknowledged before another of the same key was even sent may
 * carry a later stamp than it, by as much as those clocks differed then; within the hold-back the
 * older is therefore sent first. The hold-back is the greatest spread measured while the changes
 * not sent yet were logged (and a little before: a clock step shows at its next measurement), so
 * the changes stamped while clocks were apart still wait as long once the clocks are set right. A
 * change older than the last sent of its key is dropped (a copy that arrived late at some replica),
 * as is a copy of the last sent (from another replica). Two writes coordinated at once by two nodes
 * may get the same version (last-writer-wins then keeps the larger value): both are sent, so that
 * the one reads keep is never dropped. Confined to its feed's executor.
 */
final class FeedOrder {
  /**
   * Keys whose last change sent a feed remembers: beyond, the least recently sent are forgotten.
   */
  static final int REMEMBERED_KEYS = 100_000;

  /**
   * How long before the oldest change not sent the clocks' spread measured then still holds it
   * back: two heartbeats of clock measurement ({@code ClockOffsets.HEARTBEAT}).
   */
  static final Duration CLOCK_SLACK = Duration.ofSeconds(2);

  /**
   * The last change sent of a key: its version, and its content's hash to tell a copy of it from
   * another write given the same version (a hash collision of two such writes drops one).
   */
  private record Sent(Version version, int hash) {
    /** Whether {@code record} is to be sent after this: newer, or as new and another write. */
    boolean isBefore(Record record) {
      int order = record.version().compareTo(version);
      return order > 0 || (order == 0 && record.hashCode() != hash);
    }
  }

  private static final Comparator<Change> BY_RECORD =
      Comparator.comparing(Change::record, Record.LAST_WRITER_WINS);

  private final PriorityQueue<Change> pending =
      new PriorityQueue<>(Comparator.comparingLong(Change::stamp));
  private final ArrayDeque<Change> ready = new ArrayDeque<>();
  private final Map<Key, List<Change>> readyByKey = new HashMap<>();
  private final Set<Change> sentEarly = Collections.newSetFromMap(new IdentityHashMap<>());

  /** The spreads measured, by the watermark when measured, each greater than those after it. */
  private final ArrayDeque<long[]> spreads = new ArrayDeque<>();

  private final long slack;
  private final Map<Key, Sent> sent =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Sent> eldest) {
          return size() > REMEMBERED_KEYS;
        }
      };

  /**
   * @param slack how long before the oldest change not sent yet the spreads measured still count,
   *     in stamps: a clock step is measured by the next heartbeat
   */
  FeedOrder(long slack) {
    this.slack = slack;
  }

  /**
   * Changes read from a member's log, in any order. Those stamped at or below {@code late} are
   * late: the watermark passed them while their member took no part (cut off, down), or its clock
   * was out when it logged them, so their stamps order nothing against the others' changes; they
   * are taken as stamped at {@code now} (the watermark after the read) or at {@code late} if later,
   * after what the members taking part logged until then.
   */
  void add(List<Change> changes, long late, long now) {
    long at = Math.max(now, late);
    for (Change change : changes) {
      pending.add(change.stamp() <= late ? new Change(at, change.key(), change.record()) : change);
    }
  }

  /**
   * Sends to {@code send}, in order, every change stamped at or below {@code watermark} less the
   * hold-back and not sent yet, each preceded by the older changes of its key stamped no more than
   * the hold-back after it.
   *
   * @param spread how far apart the members' clocks are now, in stamps
   * @return the hold-back: every change stamped at or below {@code watermark} less it was sent
   */
  long release(long watermark, long spread, Consumer<Change> send) {
    while (!pending.isEmpty() && pending.peek().stamp() <= watermark) {
      Change change = pending.poll();
      ready.add(change);
      readyByKey.computeIfAbsent(change.key(), k -> new ArrayList<>(2)).add(change);
    }
    long holdBack = holdBack(watermark, spread);
    long settled = watermark - holdBack;
    while (!ready.isEmpty() && ready.peek().stamp() <= settled) {
      Change change = ready.poll();
      if (sentEarly.remove(change)) {
        continue;
      }
      List<Change> ofKey = readyByKey.get(change.key());
      ofKey.sort(BY_RECORD);
      long within = change.stamp() + holdBack;
      for (Iterator<Change> it = ofKey.iterator(); it.hasNext(); ) {
        Change next = it.next();
        if (BY_RECORD.compare(next, change) > 0) {
          break;
        }
        if (next != change && next.stamp() > within) {
          continue; // logged later than the clocks' spread explains: late, and dropped in its turn
        }
        it.remove();
        if (next != change) {
          sentEarly.add(next);
        }
        offer(next, send);
      }
      if (ofKey.isEmpty()) {
        readyByKey.remove(change.key());
      }
    }
    return holdBack;
  }

  /** The greatest spread measured since {@link #slack} before the oldest change not sent. */
  private long holdBack(long watermark, long spread) {
    while (!spreads.isEmpty() && spreads.peekLast()[1] <= spread) {
      spreads.pollLast();
    }
    spreads.addLast(new long[] {watermark, spread});
    long oldest = ready.isEmpty() ? watermark : ready.peek().stamp();
    if (!pending.isEmpty()) {
      oldest = Math.min(oldest, pending.peek().stamp());
    }
    while (spreads.size() > 1 && spreads.peekFirst()[0] < oldest - slack) {
      spreads.pollFirst();
    }
    return spreads.peekFirst()[1];
  }

  private void offer(Change change, Consumer<Change> send) {
    Sent last = sent.get(change.key());
    if (last == null || last.isBefore(change.record())) {
      sent.put(change.key(), new Sent(change.record().version(), change.record().hashCode()));
      send.accept(change);
    }
  }

  /**
   * The stamp of the oldest change taken and not sent yet, or {@link Long#MAX_VALUE}: a cursor
   * stays below it, so that a feed resumed from the cursor reads it again.
   */
  long oldestUnsent() {
    long oldest = pending.isEmpty() ? Long.MAX_VALUE : pending.peek().stamp();
    for (Change change : ready) {
      if (!sentEarly.contains(change)) {
        return Math.min(oldest, change.stamp());
      }
    }
    return oldest;
  }

  /** Forgets every change not sent. */
  void clear() {
    pending.clear();
    ready.clear();
    readyByKey.clear();
    sentEarly.clear();
  }
}
