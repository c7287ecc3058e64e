package io.kvorum.node.changes;

import io.kvorum.node.core.FeedException;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeLog.Page;
import io.kvorum.node.storage.ChangeStamps;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One change feed (SPEC §12): reads the change log of every member from a position, merges the
 * changes by arrival stamp, and sends a change once it is at or below the watermark: the lowest
 * stamp up to which every member taking part has answered complete ({@link Page#closed}), so no
 * later arrival at those members precedes it. A member the transport cannot reach, or that has
 * failed for longer than {@link FeedSettings#memberGrace}, takes no part until it answers again,
 * but only while the members left out hold no majority of any key's replicas ({@link
 * Logs#mayGoWithout}): then every write a majority of its replicas acknowledged is on a member
 * taking part. Otherwise (this node cut off from the others, two of three replicas down) the
 * watermark waits for them. The changes of a member left out come late. Changes are sent in the
 * order of {@link FeedOrder}: once the watermark is past them by the spread of the members' clocks,
 * each key's versions never going back. Progress events carry the watermark every {@link
 * FeedSettings#progressInterval}.
 *
 * <p>The consumer is never waited for: events wait in a bounded queue while it cannot take them,
 * and a consumer that lets more than {@link FeedSettings#maxQueuedEvents} wait, or takes nothing
 * for {@link FeedSettings#maxStall}, is cut off ({@link FeedException.Reason#TOO_SLOW}). Confined
 * to the executor given (a connection's event loop); never blocks it.
 */
public final class ChangeFeed {
  /** The consumer, called on the feed's executor. */
  public interface Sink {
    /** Whether the consumer can take an event now. */
    boolean writable();

    void send(FeedEvent event);

    /** The events sent since the last call are all there is for now (a moment to flush them). */
    default void sent() {}

    /** The feed ended for {@code reason}; nothing follows. */
    void end(RuntimeException reason);
  }

  /** Where the feed reads the members' logs: its own directly, the others' through the network. */
  interface Logs {
    List<NodeId> members();

    /**
     * Whether {@code member}'s log takes part now: reachable, as the transport sees it, and its
     * clock within the max offset of this node's (its stamps order with the others').
     */
    boolean reachable(NodeId member);

    /**
     * Whether {@code member}'s clock is beyond the max offset from this node's: what it logs
     * meanwhile is stamped by a clock that orders nothing against the others' stamps.
     */
    default boolean clockOut(NodeId member) {
      return false;
    }

    /**
     * Whether the watermark may pass changes {@code absent} members may hold: they hold no majority
     * of any key's replicas, so each write a majority acknowledged is on a member that answered.
     */
    boolean mayGoWithout(Set<NodeId> absent);

    /**
     * How far apart, in stamps, the members' clocks are now: a change is sent only once the
     * watermark is past it by the greatest spread measured since it was logged ({@link FeedOrder}).
     */
    long clockSpread();

    /**
     * Why this node's clock cannot order the members' logs now (it is beyond the max offset from a
     * majority of them), or empty: the feed then ends, to be resumed on another node.
     */
    Optional<? extends RuntimeException> clockRefusal();

    CompletableFuture<Page> read(NodeId member, ChangeLog.Read read);
  }

  private final KeyRange range;
  private final Logs logs;
  private final ScheduledExecutorService loop;
  private final Sink sink;
  private final FeedSettings settings;
  private final FeedMetrics metrics;
  private final LongSupplier nanoTime;
  private final long start;
  private final long margin;
  private final Map<NodeId, Member> members = new HashMap<>();
  private final FeedOrder order;
  private final ArrayDeque<FeedEvent> out = new ArrayDeque<>();
  private volatile long watermark;
  private long cursor;
  private long lastProgressNanos;
  private long stalledSinceNanos = -1;
  private boolean reading;
  private boolean ended;
  private ScheduledFuture<?> timer;

  /** What the feed knows of one member's log. */
  private static final class Member {
    long after;
    long failingSinceNanos = -1;

    /**
     * The watermark passed up to here while this member took no part: its changes there are late.
     */
    long lateUpTo = Long.MIN_VALUE;

    /**
     * Its clock was out since its log was last read to the end: all it logged until it is read to
     * the end again is late, wherever the watermark was meanwhile.
     */
    boolean clockWasOut;

    Member(long after) {
      this.after = after;
    }
  }

  /**
   * @param nanoTime monotonic time, as {@code loop} keeps it (a simulation's virtual time)
   * @param start the stamp after which the feed reads every member's log
   * @param cursor the cursor the feed starts from: nothing at or before it remains to be sent
   */
  ChangeFeed(
      KeyRange range,
      Logs logs,
      ScheduledExecutorService loop,
      Sink sink,
      FeedSettings settings,
      FeedMetrics metrics,
      LongSupplier nanoTime,
      long start,
      long cursor) {
    this.range = range;
    this.logs = logs;
    this.loop = loop;
    this.sink = sink;
    this.settings = settings;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.order = new FeedOrder(ChangeStamps.of(FeedOrder.CLOCK_SLACK.toMillis()));
    this.start = start;
    this.margin = cursor - start;
    this.watermark = cursor;
    this.cursor = cursor;
  }

  /** Starts reading; call on the feed's executor. */
  void start() {
    lastProgressNanos = nanoTime.getAsLong();
    metrics.opened(this);
    // The client learns where the feed starts before any change: its cursor to resume from.
    out.add(new FeedEvent.Progress(cursor));
    // The first read now; then on the beat every feed of the node keeps, so that the reads of
    // all the feeds meet in one call to each member (GatheredReads).
    loop.execute(this::read);
    long poll = settings.pollInterval().toNanos();
    timer =
        loop.scheduleAtFixedRate(
            this::read,
            poll - Math.floorMod(nanoTime.getAsLong(), poll),
            poll,
            TimeUnit.NANOSECONDS);
  }

  /** The consumer can take events again: sends what waits. Call on the feed's executor. */
  public void writable() {
    flush();
  }

  /** Ends the feed without a word to the consumer (it is gone). Call on the feed's executor. */
  public void close() {
    finish();
  }

  /** Ends the feed with {@code reason}, told to the consumer. Call on the feed's executor. */
  void end(RuntimeException reason) {
    if (!ended) {
      finish();
      sink.end(reason);
    }
  }

  /** The executor the feed runs on. */
  ScheduledExecutorService loop() {
    return loop;
  }

  /** The watermark: every change stamped at or before it was sent. */
  long watermark() {
    return watermark;
  }

  private void finish() {
    if (!ended) {
      ended = true;
      if (timer != null) {
        timer.cancel(false);
      }
      out.clear();
      order.clear();
      metrics.closed(this);
    }
  }

  private void read() {
    if (ended || reading) {
      return;
    }
    reading = true;
    List<NodeId> now = logs.members();
    members.keySet().retainAll(now);
    Map<NodeId, CompletableFuture<Page>> reads = new HashMap<>();
    for (NodeId id : now) {
      // A member new to the feed (a node that joined) is read from the margin before the cursor.
      Member member =
          members.computeIfAbsent(id, k -> new Member(Math.max(start, watermark - margin)));
      member.clockWasOut |= logs.clockOut(id);
      if (logs.reachable(id)) {
        reads.put(
            id, logs.read(id, new ChangeLog.Read(range, member.after, FeedSettings.READ_LIMIT)));
      }
    }
    CompletableFuture.allOf(
            reads.values().stream()
                .map(f -> f.exceptionally(e -> null))
                .toArray(CompletableFuture[]::new))
        .whenComplete((ignored, error) -> loop.execute(() -> merge(now, reads)));
  }

  private void merge(List<NodeId> asked, Map<NodeId, CompletableFuture<Page>> reads) {
    reading = false;
    if (ended) {
      return;
    }
    Optional<? extends RuntimeException> refusal = logs.clockRefusal();
    if (refusal.isPresent()) {
      end(refusal.get());
      return;
    }
    long nanos = nanoTime.getAsLong();
    long closed = Long.MAX_VALUE;
    boolean complete = true;
    boolean more = false;
    Set<NodeId> absent = new HashSet<>();
    Map<Member, Page> pages = new HashMap<>();
    for (NodeId id : asked) {
      Member member = members.get(id);
      CompletableFuture<Page> read = reads.get(id);
      Page page = read == null || read.isCompletedExceptionally() ? null : read.join();
      if (page == null) {
        if (read != null && member.failingSinceNanos < 0) {
          member.failingSinceNanos = nanos;
        }
        boolean waited = read != null && nanos - member.failingSinceNanos < grace();
        complete &= !waited;
        absent.add(id);
        continue;
      }
      member.failingSinceNanos = -1;
      if (page.purgedBefore() > member.after + 1) {
        end(expired());
        return;
      }
      pages.put(member, page);
      if (member.clockWasOut) {
        // Stamped (some of it) while its clock was out, above the watermark if it stalled then.
        member.lateUpTo = Math.max(member.lateUpTo, page.closed());
        member.clockWasOut = page.more();
      }
      member.after = Math.max(member.after, page.closed());
      closed = Math.min(closed, page.closed());
      more |= page.more();
    }
    complete &=
        absent.isEmpty() || PlantedBug.FEED_PAST_A_MAJORITY.planted() || logs.mayGoWithout(absent);
    if (complete && closed != Long.MAX_VALUE && closed > watermark) {
      watermark = closed;
      for (NodeId id : absent) {
        Member member = members.get(id);
        member.lateUpTo = Math.max(member.lateUpTo, watermark);
      }
    }
    pages.forEach((member, page) -> order.add(page.changes(), member.lateUpTo, watermark));
    emit(nanos);
    flush();
    if (more && !ended && out.size() < settings.maxQueuedEvents()) {
      loop.execute(this::read);
    }
  }

  private long grace() {
    return settings.memberGrace().toNanos();
  }

  private void emit(long nanos) {
    long holdBack =
        order.release(
            watermark,
            logs.clockSpread(),
            change -> {
              // Past this change, not past one not sent yet (it may be sent ahead of its turn).
              cursor = Math.max(cursor, Math.min(change.stamp(), order.oldestUnsent() - 1));
              out.add(new FeedEvent.Changed(change.key(), change.record(), cursor));
            });
    if (nanos - lastProgressNanos >= settings.progressInterval().toNanos()) {
      lastProgressNanos = nanos;
      cursor = Math.max(cursor, Math.min(watermark - holdBack, order.oldestUnsent() - 1));
      out.add(new FeedEvent.Progress(cursor));
    }
  }

  private void flush() {
    if (ended) {
      return;
    }
    boolean any = false;
    while (!out.isEmpty() && sink.writable()) {
      FeedEvent event = out.poll();
      sink.send(event);
      metrics.sent(event);
      any = true;
    }
    if (any) {
      sink.sent();
    }
    long nanos = nanoTime.getAsLong();
    if (out.isEmpty()) {
      stalledSinceNanos = -1;
      return;
    }
    if (stalledSinceNanos < 0) {
      stalledSinceNanos = nanos;
    }
    if (out.size() > settings.maxQueuedEvents()
        || nanos - stalledSinceNanos > settings.maxStall().toNanos()) {
      metrics.cutOff();
      end(
          new FeedException(
              FeedException.Reason.TOO_SLOW,
              "the consumer did not keep up ("
                  + out.size()
                  + " events waiting); resume from the last cursor read"));
    }
  }

  private FeedException expired() {
    return new FeedException(
        FeedException.Reason.CURSOR_EXPIRED,
        "changes this feed had not read yet were purged (older than --change-retention); read the"
            + " range again and follow from the cursor that read answers");
  }
}
