package io.kvorum.node.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.util.io.pem.PemObjectGenerator;

/**
 * A throw-away certificate authority for TLS tests: it signs node certificates for 127.0.0.1 and
 * localhost and writes them as the PEM files a node is given ({@code --tls-cert}, {@code
 * --tls-key}, {@code --tls-ca}). Keys are EC P-256, made fresh in every test run; nothing is
 * committed.
 */
public final class TestCertificates {
  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
  private final String name;
  private final KeyPair keys;
  private final X509Certificate certificate;

  private TestCertificates(String name, KeyPair keys, X509Certificate certificate) {
    this.name = name;
    this.keys = keys;
    this.certificate = certificate;
  }

  /** A new self-signed CA. */
  public static TestCertificates authority(String name) {
    KeyPair keys = keyPair();
    X500Name subject = new X500Name("CN=" + name);
    X509v3CertificateBuilder builder = builder(subject, subject, keys, Duration.ofDays(2));
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new TestCertificates(name, keys, sign(builder, keys));
  }

  /** The CA certificate as PEM, written to {@code file}. */
  public Path writeCa(Path file) {
    write(file, pem(certificate));
    return file;
  }

  /**
   * A node certificate this CA signs, for {@code 127.0.0.1} and {@code localhost}, written into
   * {@code dir} as {@code node.crt}, {@code node.key} and {@code ca.crt}.
   */
  public NodeFiles issue(String commonName, Path dir) {
    return issue(commonName, dir, Duration.ofDays(1));
  }

  /** As {@link #issue(String, Path)}, valid for {@code validity}. */
  public NodeFiles issue(String commonName, Path dir, Duration validity) {
    return issue(commonName, dir, validity, List.of());
  }

  /**
   * As {@link #issue(String, Path)}, the certificate naming {@code dnsNames} too (wildcards such as
   * {@code *.kvorum-headless.ns.svc.cluster.local} allowed).
   */
  public NodeFiles issue(String commonName, Path dir, List<String> dnsNames) {
    return issue(commonName, dir, Duration.ofDays(1), dnsNames);
  }

  private NodeFiles issue(String commonName, Path dir, Duration validity, List<String> dnsNames) {
    KeyPair node = keyPair();
    X509v3CertificateBuilder builder =
        builder(new X500Name("CN=" + name), new X500Name("CN=" + commonName), node, validity);
    try {
      builder.addExtension(
          Extension.subjectAlternativeName, false, new GeneralNames(names(dnsNames)));
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    X509Certificate issued = sign(builder, keys);
    NodeFiles files =
        new NodeFiles(
            dir.resolve("node.crt"), dir.resolve("node.key"), dir.resolve("ca.crt"), issued);
    // Written to temporary names and moved, as a Secret volume swaps its files.
    replace(files.certificate(), pem(issued));
    try {
      replace(files.key(), pem(new JcaPKCS8Generator(node.getPrivate(), null)));
    } catch (PemGenerationException e) {
      throw new IllegalStateException(e);
    }
    replace(files.ca(), pem(certificate));
    return files;
  }

  private static GeneralName[] names(List<String> dnsNames) {
    List<GeneralName> names = new ArrayList<>();
    names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    dnsNames.forEach(name -> names.add(new GeneralName(GeneralName.dNSName, name)));
    return names.toArray(GeneralName[]::new);
  }

  /** The PEM files of one node and the certificate in them. */
  public record NodeFiles(Path certificate, Path key, Path ca, X509Certificate issued) {
    /** The flags that give a node these files. */
    public String[] flags() {
      return new String[] {
        "--tls-cert", certificate.toString(), "--tls-key", key.toString(), "--tls-ca", ca.toString()
      };
    }
  }

  private static X509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair keys, Duration validity) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(validity)),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      if (object instanceof PemObjectGenerator generator) {
        writer.writeObject(generator);
      } else {
        writer.writeObject(object);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, text, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void replace(Path file, String text) {
    Path temporary = file.resolveSibling(file.getFileName() + ".new");
    write(temporary, text);
    try {
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
