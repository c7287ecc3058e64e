package io.kvorum.node.changes;

import io.kvorum.node.core.FeedException;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeStamps;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The change feeds a node serves (SPEC §12): checks where a client asks a feed to start, opens it
 * over the members' change logs, and ends every open feed when the node stops.
 */
public final class ChangeFeeds implements AutoCloseable {
  private final NodeId self;
  private final Supplier<List<NodeId>> members;
  private final PeerTransport transport;
  private final ChangeLog local;
  private final FeedSettings settings;
  private final LongSupplier wallMillis;
  private final FeedMetrics metrics;
  private final GatheredReads reads;
  private volatile boolean closed;

  /**
   * @param members the members of the cluster now, whose logs a feed reads
   * @param local this node's change log
   * @param wallMillis the node's wall clock, Unix milliseconds
   */
  public ChangeFeeds(
      NodeId self,
      Supplier<List<NodeId>> members,
      PeerTransport transport,
      ChangeLog local,
      FeedSettings settings,
      LongSupplier wallMillis,
      MeterRegistry registry) {
    this.self = self;
    this.members = members;
    this.transport = transport;
    this.local = local;
    this.settings = settings;
    this.wallMillis = wallMillis;
    this.metrics = new FeedMetrics(registry, wallMillis);
    this.reads =
        new GatheredReads(
            (member, asked) ->
                member.equals(self)
                    ? local.readAll(asked)
                    : transport.call(member, ChangesProtocol.READ, asked));
  }

  /**
   * A cursor for now: a feed from it misses no change that arrives after this call (a range read
   * answers it before it scans); empty when this node captures no changes.
   */
  public Optional<String> now() {
    return local.captures()
        ? Optional.of(Cursors.format(ChangeStamps.of(wallMillis.getAsLong())))
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
   */
  public ChangeFeed open(
      KeyRange range, Optional<String> since, ScheduledExecutorService loop, ChangeFeed.Sink sink) {
    if (closed) {
      throw new UnavailableException("the node is shutting down");
    }
    if (!local.captures()) {
      throw new FeedException(
          FeedException.Reason.NOT_CAPTURED,
          "this node captures no changes (--change-retention 0): it serves no change feeds; start"
              + " it with a positive --change-retention, or follow the feed through a node that"
              + " captures");
    }
    long now = ChangeStamps.of(wallMillis.getAsLong());
    long margin = ChangeStamps.of(settings.margin().toMillis());
    long cursor = since.map(c -> Cursors.parse("since", c)).orElse(now);
    check(cursor, now, margin);
    ChangeFeed feed =
        new ChangeFeed(
            range, new Logs(loop), loop, sink, settings, metrics, cursor - margin, cursor);
    feed.start();
    return feed;
  }

  private void check(long cursor, long now, long margin) {
    long oldest = wallMillis.getAsLong() - settings.retention().toMillis();
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
      return members.get();
    }

    @Override
    public boolean reachable(NodeId member) {
      return member.equals(self) || transport.state(member).reachable();
    }

    @Override
    public CompletableFuture<ChangeLog.Page> read(NodeId member, ChangeLog.Read read) {
      return reads.read(member, read, loop);
    }
  }
}
