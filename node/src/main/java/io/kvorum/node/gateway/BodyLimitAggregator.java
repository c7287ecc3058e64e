package io.kvorum.node.gateway;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Aggregates request bodies up to the value size limit. A body announced larger (Content-Length) is
 * refused with 413 before a byte of it is buffered, and the rest of it is discarded as it arrives;
 * a chunked body that grows past the limit is refused and its connection closed. Either way the
 * heap never holds more than the limit for one request.
 */
final class BodyLimitAggregator extends HttpObjectAggregator {
  private final int maxBytes;
  private final HttpMetrics metrics;

  BodyLimitAggregator(int maxBytes, HttpMetrics metrics) {
    super(maxBytes);
    this.maxBytes = maxBytes;
    this.metrics = metrics;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (!(oversized instanceof HttpRequest request)) {
      ctx.close();
      return;
    }
    // Once body bytes were consumed, or nothing signals that the client will wait, the connection
    // cannot be reused safely.
    boolean close =
        oversized instanceof FullHttpMessage
            || !ctx.channel().config().isAutoRead()
            || (!HttpUtil.is100ContinueExpected(request) && !HttpUtil.isKeepAlive(request));
    FullHttpResponse response =
        Problem.of(
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "the request body exceeds the limit of " + maxBytes + " bytes")
            .toResponse();
    HttpUtil.setContentLength(response, response.content().readableBytes());
    metrics.refused(Route.of(request).operation(request.method()), "413");
    if (close) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
  }
}
