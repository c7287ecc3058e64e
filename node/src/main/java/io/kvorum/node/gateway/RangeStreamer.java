package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a range as a chunked response in its {@link RangeFormat}. It pulls the next batch from
 * the cursor only while the channel is writable, so a slow client slows the scan instead of filling
 * the heap. A failing cursor cuts the response off without its final chunk (after an error line in
 * NDJSON). Event-loop confined.
 */
final class RangeStreamer implements Exchange.StreamListener {
  private static final Logger log = LoggerFactory.getLogger(RangeStreamer.class);
  private static final int BATCH_ENTRIES = 128;
  private static final long BATCH_BYTES = 256 << 10;

  private final Exchange exchange;
  private final ScanCursor cursor;
  private final ChannelHandlerContext ctx;
  private final RangeFormat format;
  private final Optional<String> changesCursor;
  private boolean waitingForWritability;
  private boolean finished;

  /**
   * @param changesCursor the cursor from which a change feed follows this read ({@code
   *     Kvorum-Cursor}, and NDJSON's end line); empty when the node captures no changes
   */
  RangeStreamer(
      Exchange exchange, ScanCursor cursor, RangeFormat format, Optional<String> changesCursor) {
    this.exchange = exchange;
    this.cursor = cursor;
    this.format = format;
    this.changesCursor = changesCursor;
    this.ctx = exchange.context();
  }

  /**
   * Fetches the first batch before answering, so that a source failing at once is an error status
   * (e.g. 504), not a cut-off 200.
   */
  void start() {
    cursor
        .next(BATCH_ENTRIES, BATCH_BYTES)
        .whenCompleteAsync(
            (batch, error) -> {
              if (error != null) {
                release();
                exchange.respond(HttpErrorMapper.toResponse(error));
                return;
              }
              HttpResponse head =
                  new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
              head.headers().set(HttpHeaderNames.CONTENT_TYPE, format.contentType());
              changesCursor.ifPresent(c -> head.headers().set(KvorumApi.CURSOR, c));
              exchange.startStream(head, this);
              onBatch(batch, null);
            },
            ctx.executor());
  }

  private void pump() {
    if (finished) {
      return;
    }
    Channel channel = ctx.channel();
    if (!channel.isWritable()) {
      waitingForWritability = true;
      ctx.flush();
      return;
    }
    cursor.next(BATCH_ENTRIES, BATCH_BYTES).whenCompleteAsync(this::onBatch, ctx.executor());
  }

  private void onBatch(List<Entry> batch, Throwable error) {
    if (finished) {
      return;
    }
    if (error != null) {
      log.warn("range cut off: {}", error.toString());
      release();
      ByteBuf last = format.failure(error);
      if (last != null) {
        exchange.abort(last);
      } else {
        exchange.abort();
      }
      return;
    }
    if (batch.isEmpty()) {
      release();
      ByteBuf end = format.end(changesCursor);
      if (end != null) {
        exchange.chunk(end);
      }
      exchange.endStream();
      return;
    }
    for (Entry entry : batch) {
      exchange.chunk(format.entry(entry));
    }
    ctx.flush();
    pump();
  }

  @Override
  public void writabilityChanged() {
    if (waitingForWritability && ctx.channel().isWritable()) {
      waitingForWritability = false;
      pump();
    }
  }

  @Override
  public void closed() {
    release();
  }

  private void release() {
    if (!finished) {
      finished = true;
      cursor.close();
    }
  }
}
