package io.kvorum.node.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One request on a connection and its response. Sets the framing and connection headers, records
 * the request's metrics once the response is written, and hands the connection on to its next
 * request. All methods run on the channel's event loop.
 */
final class Exchange {
  /** Hooks of a streaming response into the connection's flow control. */
  interface StreamListener {
    /** The channel's writability changed; resume if it is writable again. */
    void writabilityChanged();

    /** The connection is gone; release resources. */
    void closed();
  }

  private final ChannelHandlerContext ctx;
  private final HttpMetrics metrics;
  private final HttpVersion version;
  private boolean keepAlive;
  private final String operation;
  private final Runnable onDone;
  private final long startNanos = System.nanoTime();
  private StreamListener streamListener;
  private boolean done;

  Exchange(
      ChannelHandlerContext ctx,
      HttpMetrics metrics,
      HttpVersion version,
      boolean keepAlive,
      String operation,
      Runnable onDone) {
    this.ctx = ctx;
    this.metrics = metrics;
    this.version = version;
    this.keepAlive = keepAlive;
    this.operation = operation;
    this.onDone = onDone;
    metrics.started();
  }

  ChannelHandlerContext context() {
    return ctx;
  }

  /** Writes a complete response. */
  void respond(FullHttpResponse response) {
    if (done) {
      response.release();
      return;
    }
    HttpUtil.setContentLength(response, response.content().readableBytes());
    connectionHeaders(response);
    String status = String.valueOf(response.status().code());
    ctx.writeAndFlush(response).addListener(f -> finish(status, f.isSuccess()));
  }

  /**
   * Writes the response {@code result} makes, once it completes (a failure as its problem), on the
   * channel's event loop whatever thread completes it: for work that ends elsewhere (a snapshot, a
   * membership change stored on its own thread).
   */
  <T> void respondWhenDone(CompletableFuture<T> result, Function<T, FullHttpResponse> success) {
    result.whenComplete(
        (value, error) ->
            ctx.executor()
                .execute(
                    () ->
                        respond(
                            error == null
                                ? success.apply(value)
                                : HttpErrorMapper.toResponse(error))));
  }

  /**
   * Starts a streamed response; chunks follow, then {@link #endStream()} or {@link #abort()}. In
   * HTTP/1.1 the body is chunked. HTTP/1.0 has no chunked coding (a client reads it as part of the
   * body), so there the body ends where the connection does, and the connection ends with it (found
   * by fuzzing: a chunked answer to an HTTP/1.0 range request).
   */
  void startStream(HttpResponse head, StreamListener listener) {
    this.streamListener = listener;
    if (version.equals(HttpVersion.HTTP_1_0)) {
      keepAlive = false;
    } else {
      HttpUtil.setTransferEncodingChunked(head, true);
    }
    connectionHeaders(head);
    ctx.write(head);
  }

  void chunk(ByteBuf content) {
    ctx.write(new DefaultHttpContent(content));
  }

  void endStream() {
    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
        .addListener(f -> finish("200", f.isSuccess()));
  }

  /** Cuts a streaming response off without its final chunk, so the client sees it incomplete. */
  void abort() {
    ctx.close();
    finish("aborted", false);
  }

  /** Writes {@code last} (the reason, in the body's own framing), then cuts off as above. */
  void abort(ByteBuf last) {
    ctx.writeAndFlush(new DefaultHttpContent(last)).addListener(f -> abort());
  }

  void writabilityChanged() {
    if (streamListener != null) {
      streamListener.writabilityChanged();
    }
  }

  void channelClosed() {
    if (streamListener != null) {
      streamListener.closed();
    }
    finish("aborted", false);
  }

  private void connectionHeaders(HttpResponse response) {
    response.setProtocolVersion(version);
    if (!keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (version.equals(HttpVersion.HTTP_1_0)) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
  }

  private void finish(String status, boolean written) {
    if (done) {
      return;
    }
    done = true;
    metrics.finished(operation, status, startNanos);
    if (!written) {
      ctx.close();
    } else if (!keepAlive) {
      lingeringClose();
    }
    onDone.run();
  }

  /**
   * Ends the connection after a response the client must be able to read. Closing a socket with
   * unread input makes the kernel answer with a reset, which can destroy the response in the
   * client's buffers; so half-close instead, let the client read and hang up, and close for good a
   * little later in any case.
   */
  private void lingeringClose() {
    if (ctx.channel() instanceof DuplexChannel duplex && duplex.isActive()) {
      duplex
          .shutdownOutput()
          .addListener(f -> ctx.executor().schedule(() -> ctx.close(), 1, TimeUnit.SECONDS));
    } else {
      ctx.close();
    }
  }

  /**
   * Whether this exchange ends the connection: nothing after it is served. Known when it starts,
   * except for a stream in HTTP/1.0, which ends the connection once it starts.
   */
  boolean closesConnection() {
    return !keepAlive;
  }
}
