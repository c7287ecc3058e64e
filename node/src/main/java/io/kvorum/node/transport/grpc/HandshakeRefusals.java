package io.kvorum.node.transport.grpc;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's TLS negotiation, watched: a connection refused at the handshake (no certificate, one
 * another CA signed, not TLS at all) is logged once per remote address and cause — a peer with the
 * wrong certificate retries every few seconds, and its first refusal says all.
 *
 * <p>gRPC offers no public hook for failed handshakes; this wraps its own server TLS negotiator
 * (through its {@code Internal*} API) and sees the failure the negotiator passes down the pipeline.
 */
final class HandshakeRefusals implements InternalProtocolNegotiator.ProtocolNegotiator {
  private static final Logger log = LoggerFactory.getLogger(HandshakeRefusals.class);

  /** Distinct (address, cause) pairs remembered; past this the memory starts again. */
  private static final int MAX_REMEMBERED = 4096;

  private final InternalProtocolNegotiator.ProtocolNegotiator tls;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  HandshakeRefusals(SslContext server) {
    this.tls = InternalProtocolNegotiators.serverTls(server);
  }

  @Override
  public AsciiString scheme() {
    return tls.scheme();
  }

  @Override
  public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
    ChannelHandler negotiation = tls.newHandler(grpcHandler);
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        // The negotiation goes before this handler, so the failure it passes on reaches it.
        ctx.pipeline().addBefore(ctx.name(), null, negotiation);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (isHandshakeFailure(cause)) {
          refusedBy(ctx.channel().remoteAddress(), cause);
        }
        ctx.fireExceptionCaught(cause);
      }
    };
  }

  private static boolean isHandshakeFailure(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  private void refusedBy(SocketAddress remote, Throwable cause) {
    String address =
        remote instanceof InetSocketAddress inet && inet.getAddress() != null
            ? inet.getAddress().getHostAddress()
            : String.valueOf(remote);
    Throwable deepest = deepest(cause);
    String message = String.valueOf(deepest.getMessage());
    // "not an SSL/TLS record: 505249…" carries the bytes received: the cause is what comes before.
    int detail = message.indexOf(": ");
    String kind = deepest.getClass().getSimpleName();
    String key = address + "|" + kind + "|" + (detail < 0 ? message : message.substring(0, detail));
    if (logged.size() >= MAX_REMEMBERED) {
      logged.clear();
    }
    if (logged.add(key)) {
      String reason = kind + ": " + message;
      log.warn(
          "refused an inter-node connection from {} at the TLS handshake: {}"
              + " (logged once per address and cause)",
          address,
          reason.length() > 200 ? reason.substring(0, 200) + "…" : reason);
    }
  }

  /** The innermost cause: "Empty client certificate chain", "unable to find valid …". */
  private static Throwable deepest(Throwable cause) {
    Throwable deepest = cause;
    while (deepest.getCause() != null && deepest.getCause() != deepest) {
      deepest = deepest.getCause();
    }
    return deepest;
  }

  @Override
  public void close() {
    tls.close();
  }
}
