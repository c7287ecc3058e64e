package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpContentException;
import java.util.function.BooleanSupplier;

/**
 * Aggregates request bodies up to the value size limit. A body announced larger (Content-Length) is
 * refused before a byte of it is buffered; a chunked body is refused as soon as it grows past the
 * limit. Either way the rest of the body is discarded as it arrives, so the heap never holds more
 * than the limit for one request and the connection stays usable.
 *
 * <p>The refusal is passed on as a request whose decoder result is a {@link
 * TooLongHttpContentException}, so the request handler answers it (413) in order with the
 * connection's other requests.
 *
 * <p>Nothing here writes to the connection: answers go out in order, from the request handler
 * (found by fuzzing: a request pipelined behind a change feed with an {@code Expect} the node does
 * not meet was answered 417 by the aggregator in the middle of the feed's chunked body, and the
 * encoder refused it). An unmet expectation is passed on as a request whose decoder result is an
 * {@link ExpectationFailedException} (answered 417 in order, body discarded); {@code 100 Continue}
 * is sent only for the request the connection is serving next, and omitted for one pipelined behind
 * another (RFC 9110 §10.1.1 lets a server omit it: the client sends the body after its own wait).
 */
final class BodyLimitAggregator extends HttpObjectAggregator {
  private final BooleanSupplier busy;

  /**
   * @param busy whether the connection is serving a request already (a request read now waits
   *     behind it)
   */
  BodyLimitAggregator(int maxBytes, BooleanSupplier busy) {
    super(maxBytes);
    this.busy = busy;
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    if (!start.decoderResult().isSuccess()) {
      return null; // answered 400 by the request handler; nothing to continue
    }
    long announced;
    try {
      announced = HttpUtil.getContentLength(start, -1L);
    } catch (NumberFormatException e) {
      // A Content-Length that is not a number (found by fuzzing): the codec let it through, and
      // throwing here would end the connection without an answer. The handler answers 400.
      start.setDecoderResult(DecoderResult.failure(e));
      return null;
    }
    if (announced > limit(start)) {
      return null; // answered by handleOversizedMessage, with a body saying why
    }
    String expectation = start.headers().get(HttpHeaderNames.EXPECT);
    if (expectation != null
        && start.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0
        && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expectation)) {
      start.setDecoderResult(DecoderResult.failure(new ExpectationFailedException(expectation)));
      return null; // the body is read and dropped; the handler answers 417 in its turn
    }
    if (busy.getAsBoolean()) {
      return null;
    }
    return super.newContinueResponse(start, maxContentLength, pipeline);
  }

  /** An {@code Expect} header other than {@code 100-continue}: answered 417. */
  static final class ExpectationFailedException extends DecoderException {
    private static final long serialVersionUID = 1L;

    ExpectationFailedException(String expectation) {
      super("the node meets no expectation but 100-continue; got Expect: " + expectation);
    }
  }

  @Override
  protected boolean isContentLengthInvalid(HttpMessage start, int maxContentLength) {
    try {
      return HttpUtil.getContentLength(start, -1L) > limit(start);
    } catch (NumberFormatException e) {
      return false; // answered 400 by the request handler (newContinueResponse marks it)
    }
  }

  /**
   * The largest body {@code start} may announce: a batch's {@link KvorumApi#BATCH_MAX_BYTES} when
   * that is below the limit of every body; a chunked batch over it is refused once aggregated.
   */
  private int limit(HttpMessage start) {
    return start instanceof HttpRequest request
            && Route.path(request.uri()).equals(KvorumApi.PATH_BATCH)
        ? Math.min(maxContentLength(), KvorumApi.BATCH_MAX_BYTES)
        : maxContentLength();
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (!(oversized instanceof HttpRequest request)) {
      ctx.close();
      return;
    }
    FullHttpRequest refused =
        new DefaultFullHttpRequest(
            request.protocolVersion(), request.method(), request.uri(), Unpooled.EMPTY_BUFFER);
    refused.headers().set(request.headers());
    refused.setDecoderResult(
        DecoderResult.failure(
            new TooLongHttpContentException(
                "the request body exceeds the limit of " + limit(request) + " bytes")));
    ctx.fireChannelRead(refused);
  }
}
