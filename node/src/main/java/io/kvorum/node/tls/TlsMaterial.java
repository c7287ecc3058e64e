package io.kvorum.node.tls;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.CertificateUtils;
import io.kvorum.node.tls.TlsFileException.Role;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Date;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's certificate and private key, and the CA it trusts, read from PEM files and re-read
 * every reload interval: a changed set of files (cert-manager renewing a Secret) is taken for the
 * handshakes that follow, without a restart; connections already open keep the session they have. A
 * changed set that does not hold together (a file half written, a key that does not match the
 * certificate) is not taken: the previous material stays and the problem is logged once.
 *
 * <p>The trust manager verifies a peer's chain against the CA; as a client it also verifies that
 * the certificate names the host that was dialled (HTTPS endpoint identification), as a server it
 * checks the chain only. Thread-safe.
 */
public final class TlsMaterial implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TlsMaterial.class);

  /** The three PEM files: certificate chain, PKCS#8 private key, trusted CA certificates. */
  public record Files(Path certificate, Path privateKey, Path trustedCa) {}

  private final Files files;
  private final TlsEngine engine;
  private final AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
  private final AdvancedTlsX509TrustManager trust;
  private final ScheduledExecutorService reloader;
  private final boolean ownsReloader;
  private volatile ScheduledFuture<?> reloading;
  private volatile Contents applied;
  private volatile X509Certificate certificate;
  private Contents refused;

  private TlsMaterial(
      Files files, TlsEngine engine, ScheduledExecutorService reloader, boolean ownsReloader)
      throws GeneralSecurityException {
    this.files = files;
    this.engine = engine;
    this.reloader = reloader;
    this.ownsReloader = ownsReloader;
    this.trust =
        AdvancedTlsX509TrustManager.newBuilder()
            .setVerification(
                AdvancedTlsX509TrustManager.Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION)
            .build();
  }

  /**
   * Reads the files, then checks them again every {@code reloadInterval}; {@code engine} is the TLS
   * implementation the edges use with this material.
   *
   * @throws TlsFileException naming the first file that cannot be read or does not hold what it
   *     must
   */
  public static TlsMaterial load(Files files, Duration reloadInterval, TlsEngine engine)
      throws TlsFileException {
    return load(
        files,
        reloadInterval,
        engine,
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("kvorum-tls-reload").daemon().factory()),
        true);
  }

  /**
   * As {@link #load(Files, Duration, TlsEngine)}, checking the files on {@code reloader}, a thread
   * the caller owns (a node's, under its resources), which closing the material leaves running.
   */
  public static TlsMaterial load(
      Files files, Duration reloadInterval, TlsEngine engine, ScheduledExecutorService reloader)
      throws TlsFileException {
    return load(files, reloadInterval, engine, reloader, false);
  }

  private static TlsMaterial load(
      Files files,
      Duration reloadInterval,
      TlsEngine engine,
      ScheduledExecutorService reloader,
      boolean ownsReloader)
      throws TlsFileException {
    TlsMaterial material;
    try {
      material = new TlsMaterial(files, engine, reloader, ownsReloader);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK offers no X.509 trust manager", e);
    }
    try {
      material.apply(Contents.read(files));
    } catch (TlsFileException e) {
      material.close();
      throw e;
    }
    long every = reloadInterval.toMillis();
    material.reloading =
        material.reloader.scheduleWithFixedDelay(
            material::reload, every, every, TimeUnit.MILLISECONDS);
    X509Certificate leaf = material.certificate;
    log.info(
        "TLS ({} engine): certificate {} (serial {}, valid until {}) from {}, trusting the CA"
            + " in {}; the files are checked for changes every {} ms",
        engine,
        leaf.getSubjectX500Principal().getName(),
        leaf.getSerialNumber().toString(16),
        leaf.getNotAfter().toInstant(),
        files.certificate(),
        files.trustedCa(),
        every);
    return material;
  }

  /** The TLS implementation to run handshakes with. */
  public TlsEngine engine() {
    return engine;
  }

  /** Presents this node's current certificate and key. */
  public X509ExtendedKeyManager keyManager() {
    return keys;
  }

  /** Verifies peers against the current CA (and, as a client, the host dialled). */
  public X509ExtendedTrustManager trustManager() {
    return trust;
  }

  /** The certificate this node presents now. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** Takes the files if they changed and hold together; otherwise keeps what it has. */
  void reload() {
    Contents read;
    try {
      read = Contents.read(files);
    } catch (TlsFileException e) {
      log.warn("TLS: cannot read the files again, keeping the material loaded before: {}", e);
      return;
    }
    if (read.equals(applied) || read.equals(refused)) {
      return;
    }
    try {
      apply(read);
      refused = null;
      log.info(
          "TLS: reloaded the files; now presenting {} (serial {}, valid until {})",
          certificate.getSubjectX500Principal().getName(),
          certificate.getSerialNumber().toString(16),
          certificate.getNotAfter().toInstant());
    } catch (TlsFileException e) {
      refused = read;
      log.warn(
          "TLS: the changed files are not taken ({}); the material loaded before stays in use"
              + " until they change again",
          e.getMessage());
    }
  }

  private void apply(Contents contents) throws TlsFileException {
    X509Certificate[] chain = certificates(Role.CERTIFICATE, files.certificate(), contents.chain);
    PrivateKey key = privateKey(files.privateKey(), contents.key);
    X509Certificate[] ca = certificates(Role.TRUSTED_CA, files.trustedCa(), contents.ca);
    requireMatching(chain[0], key);
    try {
      trust.updateTrustCredentials(ca);
    } catch (IOException | GeneralSecurityException e) {
      throw new TlsFileException(Role.TRUSTED_CA, files.trustedCa(), e.toString());
    }
    keys.updateIdentityCredentials(chain, key);
    certificate = chain[0];
    applied = contents;
    if (chain[0].getNotAfter().before(new Date())) {
      log.warn(
          "TLS: the certificate in {} expired at {}; peers will refuse it",
          files.certificate(),
          chain[0].getNotAfter().toInstant());
    }
  }

  private static X509Certificate[] certificates(Role role, Path file, byte[] pem)
      throws TlsFileException {
    X509Certificate[] certificates;
    try {
      certificates = CertificateUtils.getX509Certificates(new ByteArrayInputStream(pem));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new TlsFileException(role, file, "not a PEM certificate (" + e.getMessage() + ")");
    }
    if (certificates.length == 0) {
      throw new TlsFileException(role, file, "holds no PEM certificate");
    }
    return certificates;
  }

  private static PrivateKey privateKey(Path file, byte[] pem) throws TlsFileException {
    String text = new String(pem, StandardCharsets.US_ASCII);
    if (text.contains("-----BEGIN RSA PRIVATE KEY-----")
        || text.contains("-----BEGIN EC PRIVATE KEY-----")) {
      throw new TlsFileException(
          Role.PRIVATE_KEY,
          file,
          "the key must be PKCS#8 (BEGIN PRIVATE KEY): convert it with"
              + " `openssl pkcs8 -topk8 -nocrypt`, or set privateKey.encoding: PKCS8 in the"
              + " cert-manager Certificate");
    }
    if (!text.contains("-----BEGIN PRIVATE KEY-----")) {
      throw new TlsFileException(
          Role.PRIVATE_KEY, file, "holds no unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY)");
    }
    try {
      return CertificateUtils.getPrivateKey(new ByteArrayInputStream(pem));
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new TlsFileException(
          Role.PRIVATE_KEY, file, "not an RSA or EC private key (" + e.getMessage() + ")");
    }
  }

  /** The key must be the certificate's: a signature made with one verifies with the other. */
  private void requireMatching(X509Certificate leaf, PrivateKey key) throws TlsFileException {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> null;
        };
    if (algorithm == null) {
      return;
    }
    byte[] probe = "kvorum".getBytes(StandardCharsets.US_ASCII);
    boolean matches;
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(leaf.getPublicKey());
      verifier.update(probe);
      matches = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      matches = false;
    }
    if (!matches) {
      throw new TlsFileException(
          Role.PRIVATE_KEY,
          files.privateKey(),
          "is not the key of the certificate in " + files.certificate());
    }
  }

  /** Stops checking the files (and the thread that did, if the material made it). */
  @Override
  public void close() {
    ScheduledFuture<?> checks = reloading;
    if (checks != null) {
      checks.cancel(false);
    }
    if (ownsReloader) {
      reloader.shutdownNow();
    }
  }

  /** The bytes of the three files as read at one time. */
  private record Contents(byte[] chain, byte[] key, byte[] ca) {
    static Contents read(Files files) throws TlsFileException {
      return new Contents(
          bytes(Role.CERTIFICATE, files.certificate()),
          bytes(Role.PRIVATE_KEY, files.privateKey()),
          bytes(Role.TRUSTED_CA, files.trustedCa()));
    }

    private static byte[] bytes(Role role, Path file) throws TlsFileException {
      try {
        return java.nio.file.Files.readAllBytes(file);
      } catch (IOException | SecurityException e) {
        throw new TlsFileException(role, file, "cannot read it (" + e + ")");
      }
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Contents c
          && Arrays.equals(chain, c.chain)
          && Arrays.equals(key, c.key)
          && Arrays.equals(ca, c.ca);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(chain) * 31 * 31 + Arrays.hashCode(key) * 31 + Arrays.hashCode(ca);
    }

    @Override
    public String toString() {
      return "Contents";
    }
  }
}
