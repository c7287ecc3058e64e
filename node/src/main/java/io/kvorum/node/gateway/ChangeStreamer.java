package io.kvorum.node.gateway;

import io.kvorum.node.changes.ChangeFeed;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.changes.FeedEvent;
import io.kvorum.node.core.KeyRange;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Streams a change feed as a chunked response in its {@link ChangeFormat}: the feed's events while
 * the channel is writable (Netty's write-buffer water marks), nothing while it is not, so a
 * consumer that does not read holds at most the channel's buffer and the feed's bounded queue; the
 * feed cuts it off once that fills or stays full ({@link ChangeFeed}). An ended feed writes its
 * reason as the last event and cuts the response off without its final chunk; a connection whose
 * consumer reads nothing at all is closed a moment later in any case. Event-loop confined.
 */
final class ChangeStreamer implements Exchange.StreamListener, ChangeFeed.Sink {
  /** How long the last event of an ended feed may take to leave before the connection is closed. */
  private static final long CLOSE_AFTER_SECONDS = 5;

  private final Exchange exchange;
  private final ChannelHandlerContext ctx;
  private final ChangeFormat format;
  private ChangeFeed feed;

  ChangeStreamer(Exchange exchange, ChangeFormat format) {
    this.exchange = exchange;
    this.ctx = exchange.context();
    this.format = format;
  }

  /**
   * Opens the feed and answers 200, or answers the reason it cannot open (400, 410, 503) as an
   * error status.
   */
  void start(ChangeFeeds feeds, KeyRange range, Optional<String> since) {
    try {
      feed = feeds.open(range, since, ctx.executor(), this);
    } catch (RuntimeException e) {
      exchange.respond(HttpErrorMapper.toResponse(e));
      return;
    }
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, format.contentType())
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
    exchange.startStream(head, this);
    ctx.flush();
  }

  @Override
  public boolean writable() {
    return ctx.channel().isWritable();
  }

  @Override
  public void send(FeedEvent event) {
    exchange.chunk(format.event(event));
  }

  @Override
  public void sent() {
    ctx.flush();
  }

  @Override
  public void end(RuntimeException reason) {
    exchange.abort(format.failure(reason));
    try {
      ctx.executor().schedule(() -> ctx.close(), CLOSE_AFTER_SECONDS, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      ctx.close(); // the loop is stopping: the connection closes with it
    }
  }

  @Override
  public void writabilityChanged() {
    if (feed != null && ctx.channel().isWritable()) {
      feed.writable();
    }
  }

  @Override
  public void closed() {
    if (feed != null) {
      feed.close();
    }
  }
}
