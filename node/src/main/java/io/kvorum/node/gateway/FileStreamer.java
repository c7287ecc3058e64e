package io.kvorum.node.gateway;

import io.kvorum.node.core.ChunkReader;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one snapshot file as the body of a {@code 200}, chunk by chunk as the channel takes them:
 * each chunk read on the snapshots' thread, written on the connection's event loop. The length is
 * known ({@code X-Kvorum-Bytes}); a read that fails cuts the body off, so the client sees it short.
 */
final class FileStreamer implements Exchange.StreamListener {
  private static final Logger log = LoggerFactory.getLogger(FileStreamer.class);
  private static final int CHUNK = 256 << 10;

  /** The file's size, sent first: the body is chunked, so a client checks it ends whole. */
  static final String BYTES_HEADER = "X-Kvorum-Bytes";

  private final Exchange exchange;
  private final ChunkReader reader;
  private final ChannelHandlerContext ctx;
  private boolean waitingForWritability;
  private boolean finished;

  FileStreamer(Exchange exchange, ChunkReader reader) {
    this.exchange = exchange;
    this.reader = reader;
    this.ctx = exchange.context();
  }

  void start() {
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
    head.headers().set(BYTES_HEADER, reader.size());
    exchange.startStream(head, this);
    pump();
  }

  private void pump() {
    if (finished) {
      return;
    }
    if (!ctx.channel().isWritable()) {
      waitingForWritability = true;
      ctx.flush();
      return;
    }
    reader.next(CHUNK).whenCompleteAsync(this::onChunk, ctx.executor());
  }

  private void onChunk(byte[] chunk, Throwable error) {
    if (finished) {
      return;
    }
    if (error != null) {
      log.warn("snapshot file cut off: {}", error.toString());
      release();
      exchange.abort();
      return;
    }
    if (chunk.length == 0) {
      release();
      exchange.endStream();
      return;
    }
    exchange.chunk(Unpooled.wrappedBuffer(chunk));
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
      reader.close();
    }
  }
}
