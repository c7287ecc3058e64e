package io.kvorum.node.transport.grpc;

import io.grpc.netty.GrpcSslContexts;
import io.kvorum.node.tls.TlsMaterial;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLException;

/**
 * Mutual TLS between nodes: the server asks every peer for a certificate and accepts only one the
 * CA signed; the client presents its own and accepts only a peer whose certificate the CA signed
 * and names the host it dialled. Both read the {@link TlsMaterial} at each handshake, so reloaded
 * files take effect for new connections while open ones carry on.
 */
public final class GrpcTls {
  private final SslContext server;
  private final SslContext client;

  private GrpcTls(SslContext server, SslContext client) {
    this.server = server;
    this.client = client;
  }

  /** The contexts of {@code material}, on its engine. */
  public static GrpcTls of(TlsMaterial material) {
    SslProvider provider = material.engine().provider();
    try {
      SslContext server =
          GrpcSslContexts.configure(
                  SslContextBuilder.forServer(material.keyManager())
                      .trustManager(material.trustManager())
                      .clientAuth(ClientAuth.REQUIRE),
                  provider)
              .build();
      SslContext client =
          GrpcSslContexts.configure(
                  SslContextBuilder.forClient()
                      .keyManager(material.keyManager())
                      .trustManager(material.trustManager()),
                  provider)
              .build();
      return new GrpcTls(server, client);
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  SslContext server() {
    return server;
  }

  SslContext client() {
    return client;
  }
}
