package io.kvorum.node.gateway;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpContentException;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's requests, answered strictly in arrival order (HTTP/1.1 pipelining): while one
 * request is being served, later ones wait here and the socket is not read further, so a client
 * cannot queue unbounded work. Malformed requests end the connection; a body over the limit is
 * discarded and the connection stays usable ({@link HttpErrorMapper} decides their answers, 400 and
 * 413).
 */
final class HttpRequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(HttpRequestHandler.class);

  private final Endpoints endpoints;
  private final HttpMetrics metrics;
  private final BooleanSupplier draining;
  private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private Exchange current;
  private boolean closing;
  private boolean serving;

  HttpRequestHandler(Endpoints endpoints, HttpMetrics metrics, BooleanSupplier draining) {
    this.endpoints = endpoints;
    this.metrics = metrics;
    this.draining = draining;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (closing) {
      request.release(); // the connection ends after the response in flight
      return;
    }
    if (current != null) {
      waiting.add(request);
      ctx.channel().config().setAutoRead(false);
      return;
    }
    serve(request);
  }

  /**
   * Serves {@code first} and then, while each answer is written before serving returns (answers
   * completing at once, on this loop), the requests waiting behind it: in a loop, not by recursion,
   * so a long pipeline cannot overflow the stack.
   */
  private void serve(FullHttpRequest first) {
    serving = true;
    try {
      for (FullHttpRequest request = first; request != null; ) {
        serveOne(request);
        request = current == null ? nextWaiting() : null;
      }
    } finally {
      serving = false;
    }
  }

  private void serveOne(FullHttpRequest request) {
    try {
      DecoderResult decoded = request.decoderResult();
      Route route = Route.of(request);
      // A body over the limit was discarded: the request itself parsed and the connection is in
      // sync. Any other decoding failure leaves the byte stream unusable.
      boolean parsed =
          decoded.isSuccess()
              || decoded.cause() instanceof TooLongHttpContentException
              || decoded.cause() instanceof BodyLimitAggregator.ExpectationFailedException;
      // The codec takes any HTTP/x.y; only HTTP/1 is spoken here (found by fuzzing: an HTTP/0.1
      // request was answered in HTTP/0.1 with a chunked body).
      boolean supported = parsed && request.protocolVersion().majorVersion() == 1;
      boolean keepAlive = supported && HttpUtil.isKeepAlive(request) && !draining.getAsBoolean();
      HttpVersion version =
          supported && request.protocolVersion().minorVersion() == 0
              ? HttpVersion.HTTP_1_0
              : HttpVersion.HTTP_1_1;
      current =
          new Exchange(
              ctx,
              metrics,
              version,
              keepAlive,
              supported ? route.operation(request.method()) : "malformed",
              this::done);
      closing = current.closesConnection();
      if (!decoded.isSuccess()) {
        current.respond(HttpErrorMapper.undecodable(decoded.cause()));
        return;
      }
      if (!supported) {
        current.respond(HttpErrorMapper.versionNotSupported(request.protocolVersion()));
        return;
      }
      try {
        endpoints.handle(route, request, current);
      } catch (RuntimeException e) {
        current.respond(HttpErrorMapper.toResponse(e));
      }
    } finally {
      request.release();
    }
  }

  /** Whether a request is being served: one read now waits behind it. */
  boolean busy() {
    return current != null;
  }

  /** The current exchange is answered: serve the next request, unless {@link #serve} will. */
  private void done() {
    closing |= current.closesConnection();
    current = null;
    if (!serving) {
      FullHttpRequest request = nextWaiting();
      if (request != null) {
        serve(request);
      }
    }
  }

  /** The next request waiting, if the connection goes on; reading resumes once none waits. */
  private FullHttpRequest nextWaiting() {
    if (closing || !ctx.channel().isActive()) {
      releaseWaiting();
      return null;
    }
    FullHttpRequest request = waiting.poll();
    if (request == null) {
      ctx.channel().config().setAutoRead(true);
    }
    return request;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (current != null) {
      current.writabilityChanged();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseWaiting();
    if (current != null) {
      current.channelClosed();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent && current == null) {
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ClosedChannelException && !ctx.channel().isActive()) {
      // A write to a connection that has already ended, such as the aggregator's 100 Continue to a
      // request pipelined behind one that closed it (found by fuzzing): nothing failed.
      return;
    }
    log.debug("closing connection {} after an error", ctx.channel().remoteAddress(), cause);
    ctx.close();
  }

  private void releaseWaiting() {
    FullHttpRequest request;
    while ((request = waiting.poll()) != null) {
      request.release();
    }
  }
}
