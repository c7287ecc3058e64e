package io.kvorum.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS a client trusts a node's certificate with: a PEM CA file or a trust store; for {@link
 * KvorumClientBuilder} and for tools that send their own requests.
 */
public final class ClientTls {
  private ClientTls() {}

  /**
   * Trusts the certificates of a PEM file (the nodes' {@code --tls-ca}).
   *
   * @throws UncheckedIOException when the file cannot be read
   * @throws IllegalArgumentException when it holds no certificate
   */
  public static SSLContext trustingPem(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, certificate);
      }
      if (i == 0) {
        throw new IllegalArgumentException("no certificate in " + caFile);
      }
      return context(store);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CA file " + caFile, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM certificate file: " + caFile, e);
    }
  }

  /** Trusts the certificates of a trust store (PKCS#12 or JKS). */
  public static SSLContext trustingStore(Path trustStore, char[] password) {
    try {
      return context(KeyStore.getInstance(trustStore.toFile(), password));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the trust store " + trustStore, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a trust store: " + trustStore, e);
    }
  }

  private static SSLContext context(KeyStore trusted) throws GeneralSecurityException {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }
}
