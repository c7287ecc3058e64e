package io.kvorum.node.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * Which TLS implementation runs the handshakes and the record layer: the JDK's own ({@code
 * SSLEngine}), or BoringSSL through netty-tcnative. Both are shipped; the JDK's is the default
 * (docs/decisions/tls-engine-the-jdks-by-default.md says why) and {@value #PROPERTY} switches, so
 * that both can be measured.
 */
public enum TlsEngine {
  JDK,
  OPENSSL;

  /** The system property that chooses the engine: {@code jdk} or {@code openssl}. */
  public static final String PROPERTY = "kvorum.tls.engine";

  /**
   * The engine {@value #PROPERTY} names, {@link #JDK} when it is not set.
   *
   * @throws IllegalArgumentException if it names neither, or OpenSSL, which cannot load here
   */
  public static TlsEngine fromSystemProperties() {
    String value = System.getProperty(PROPERTY, "jdk").trim().toLowerCase(Locale.ROOT);
    return switch (value) {
      case "jdk" -> JDK;
      case "openssl", "boringssl" -> {
        if (!OpenSsl.isAvailable()) {
          throw new IllegalArgumentException(
              "netty-tcnative (BoringSSL) cannot load here: " + OpenSsl.unavailabilityCause());
        }
        yield OPENSSL;
      }
      default -> throw new IllegalArgumentException("must be jdk or openssl");
    };
  }

  /** Netty's name for this engine. */
  public SslProvider provider() {
    return this == JDK ? SslProvider.JDK : SslProvider.OPENSSL;
  }
}
