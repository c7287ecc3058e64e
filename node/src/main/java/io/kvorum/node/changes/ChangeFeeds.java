package io.kvorum.node.changes;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.FeedException;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeStamps;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Placement;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The change feeds a node serves (SPEC §12): checks where a client asks a feed to start, opens it
 * over the members' change logs, and ends every open feed when the node stops.
 */
public final class ChangeFeeds implements AutoCloseable {
  private final NodeId self;
  private final Supplier<Owners> owners;
  private final int replicationFactor;
  private final PeerTransport transport;
  private final ChangeLog local;
  private final FeedSettings settings;
  private final Clocks clocks;
  private final FeedMetrics metrics;
  private final GatheredReads reads;
  private volatile ClockView clockView;
  private volatile boolean closed;

  /**
   * @param owners the placement of keys on the members now, whose logs a feed reads
   * @param replicationFactor a key's replicas when a request does not say
   * @param local this node's change log
   * @param clocks the node's clocks, as feeds read them
   */
  public ChangeFeeds(
      NodeId self,
      Supplier<Owners> owners,
      int replicationFactor,
      PeerTransport transport,
      ChangeLog local,
      FeedSettings settings,
      Clocks clocks,
      MeterRegistry registry) {
    this.self = self;
    this.owners = owners;
    this.replicationFactor = replicationFactor;
    this.transport = transport;
    this.local = local;
    this.settings = settings;
    this.clocks = clocks;
    this.metrics = new FeedMetrics(registry, clocks.wallMillis());
    this.reads =
        new GatheredReads(
            (member, asked) ->
                member.equals(self)
                    ? local.readAll(asked)
                    : transport.call(member, ChangesProtocol.READ, asked));
  }

  /**
   * The clocks a node's feeds read.
   *
   * @param wallMillis the node's wall clock, Unix milliseconds
   * @param nanoTime the node's monotonic time, as the feeds' executors keep it
   * @param spreadMillis how far apart the members' clocks within the max offset may be now ({@code
   *     ClockOffsets.spreadMillis}); the margin caps it
   * @param beyondMax whether a member's clock is further from this node's than the max offset: its
   *     log takes no part in feeds until it is back within
   * @param refusal why this node's own clock is out (beyond the max offset from a majority of its
   *     peers, {@code ClockOffsets.refusal}): it serves no feed meanwhile
   */
  public record Clocks(
      LongSupplier wallMillis,
      LongSupplier nanoTime,
      LongSupplier spreadMillis,
      Predicate<NodeId> beyondMax,
      Supplier<Optional<ClockOffsetException>> refusal) {}

  /**
   * A cursor for now: a feed from it misses no change that arrives after this call (a range read
   * answers it before it scans); empty when this node captures no changes.
   */
  public Optional<String> now() {
    return local.captures()
        ? Optional.of(Cursors.format(ChangeStamps.of(clocks.wallMillis().getAsLong())))
        : Optional.empty();
  }

  /**
   * Opens a feed of {@code range} after {@code since} (a cursor; empty: from now), run on {@code
   * loop} and sending to {@code sink}; call on {@code loop}.
   *
   * @throws InvalidRequestException if {@code since} is not a cursor, or is ahead of this node's
   *     clock by more than the clocks' margin
   * @throws FeedException CURSOR_EXPIRED if {@code since} is older than the retention, NOT_CAPTURED
   *     if this node captures no changes
   * @throws UnavailableException if the node is stopping
   * @throws ClockOffsetException if this node's clock is beyond the max offset from most peers
   */
  public ChangeFeed open(
      KeyRange range, Optional<String> since, ScheduledExecutorService loop, ChangeFeed.Sink sink) {
    if (closed) {
      throw new UnavailableException("the node is shutting down");
    }
    Optional<ClockOffsetException> refusal = clockView().refusal();
    if (refusal.isPresent()) {
      throw refusal.get();
    }
    if (!local.captures()) {
      throw new FeedException(
          FeedException.Reason.NOT_CAPTURED,
          "this node captures no changes (--change-retention 0): it serves no change feeds; start"
              + " it with a positive --change-retention, or follow the feed through a node that"
              + " captures");
    }
    long now = ChangeStamps.of(clocks.wallMillis().getAsLong());
    long margin = ChangeStamps.of(settings.margin().toMillis());
    long cursor = since.map(c -> Cursors.parse("since", c)).orElse(now);
    check(cursor, now, margin);
    ChangeFeed feed =
        new ChangeFeed(
            range,
            new Logs(loop),
            loop,
            sink,
            settings,
            metrics,
            clocks.nanoTime(),
            cursor - margin,
            cursor);
    feed.start();
    return feed;
  }

  private void check(long cursor, long now, long margin) {
    long oldest = clocks.wallMillis().getAsLong() - settings.retention().toMillis();
    if (Cursors.millis(cursor) < oldest) {
      throw new FeedException(
          FeedException.Reason.CURSOR_EXPIRED,
          "the cursor is from "
              + Instant.ofEpochMilli(Cursors.millis(cursor))
              + ", older than the change retention ("
              + settings.retention()
              + "): read the range again and follow from the cursor that read answers");
    }
    if (cursor > now + margin) {
      throw new InvalidRequestException(
          "since", "the cursor is ahead of this node's clock: not one this cluster gave");
    }
    if (cursor < margin) {
      throw new InvalidRequestException("since", "not a cursor this API gave");
    }
  }

  /**
   * The clocks as the node measured them, for every feed's poll: taken again at most every {@link
   * #CLOCK_VIEW} (the offsets are measured every second), not by each of a thousand feeds.
   */
  private record ClockView(
      long atNanos, long spread, Set<NodeId> beyond, Optional<ClockOffsetException> refusal) {}

  /** How long the feeds use one {@link ClockView}: a poll. */
  private static final long CLOCK_VIEW = TimeUnit.MILLISECONDS.toNanos(100);

  private ClockView clockView() {
    long now = clocks.nanoTime().getAsLong();
    ClockView view = clockView;
    if (view == null || now - view.atNanos() >= CLOCK_VIEW) {
      Set<NodeId> beyond = new HashSet<>();
      for (NodeId member : owners.get().state().ids()) {
        if (!member.equals(self) && clocks.beyondMax().test(member)) {
          beyond.add(member);
        }
      }
      long spread = Math.min(clocks.spreadMillis().getAsLong(), settings.margin().toMillis());
      view =
          new ClockView(now, ChangeStamps.of(spread), Set.copyOf(beyond), clocks.refusal().get());
      clockView = view;
    }
    return view;
  }

  /** Ends every open feed with "shutting down"; no feed opens after. */
  @Override
  public void close() {
    closed = true;
    UnavailableException stopping = new UnavailableException("the node is shutting down");
    for (ChangeFeed feed : metrics.open()) {
      feed.loop().execute(() -> feed.end(stopping));
    }
  }

  /**
   * The members' logs as one feed reads them: this node's and the others' alike, gathered with the
   * other feeds' reads; {@code loop} (the feed's) waits out the gathering window.
   */
  private final class Logs implements ChangeFeed.Logs {
    private final ScheduledExecutorService loop;

    Logs(ScheduledExecutorService loop) {
      this.loop = loop;
    }

    @Override
    public List<NodeId> members() {
      return owners.get().state().ids();
    }

    @Override
    public long clockSpread() {
      return clockView().spread();
    }

    @Override
    public Optional<ClockOffsetException> clockRefusal() {
      return clockView().refusal();
    }

    @Override
    public boolean mayGoWithout(Set<NodeId> absent) {
      Placement placement = owners.get().readPlacement();
      int from = Math.min(replicationFactor, placement.clusterSize());
      return placement.mostReplicasAmong(absent, from) < from / 2 + 1;
    }

    @Override
    public boolean reachable(NodeId member) {
      return member.equals(self)
          || (transport.state(member).reachable() && !clockView().beyond().contains(member));
    }

    @Override
    public boolean clockOut(NodeId member) {
      return !member.equals(self) && clockView().beyond().contains(member);
    }

    @Override
    public CompletableFuture<ChangeLog.Page> read(NodeId member, ChangeLog.Read read) {
      return reads.read(member, read, loop);
    }
  }
}
