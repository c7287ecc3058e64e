package io.kvorum.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.testing.TestCertificates;
import io.kvorum.node.tls.TlsFileException.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a node is given: read and checked at start (a bad one named), and re-read when they
 * change on disk, keeping what worked when the change does not hold together.
 */
class TlsMaterialTest {
  @TempDir Path dir;
  private final TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
  private TlsMaterial material;

  @AfterEach
  void close() {
    if (material != null) {
      material.close();
    }
  }

  private static TlsMaterial load(TestCertificates.NodeFiles files) throws TlsFileException {
    return TlsMaterial.load(
        new TlsMaterial.Files(files.certificate(), files.key(), files.ca()),
        Duration.ofHours(1),
        TlsEngine.JDK);
  }

  @Test
  void presentsTheCertificateOfItsFiles() throws Exception {
    TestCertificates.NodeFiles files = ca.issue("node-0", dir);

    material = load(files);

    assertThat(material.certificate()).isEqualTo(files.issued());
    assertThat(material.trustManager().getAcceptedIssuers()).hasSize(1);
  }

  @Test
  void takesRenewedFilesWhenTheyChangeOnDisk() throws Exception {
    material = load(ca.issue("node-0", dir));

    TestCertificates.NodeFiles renewed = ca.issue("node-0", dir);
    material.reload();

    assertThat(material.certificate()).isEqualTo(renewed.issued());
  }

  @Test
  void keepsTheMaterialItHasWhenTheChangedKeyIsNotTheCertificates() throws Exception {
    TestCertificates.NodeFiles first = ca.issue("node-0", dir);
    material = load(first);
    byte[] oldKey = Files.readAllBytes(first.key());

    ca.issue("node-0", dir);
    // Only the certificate was replaced so far, as a non-atomic copy may leave it.
    Files.write(first.key(), oldKey);
    material.reload();

    assertThat(material.certificate()).isEqualTo(first.issued());
  }

  @Test
  void aMissingFileIsNamed() {
    TestCertificates.NodeFiles files = ca.issue("node-0", dir);
    Path missing = dir.resolve("absent.key");

    assertThatThrownBy(
            () ->
                TlsMaterial.load(
                    new TlsMaterial.Files(files.certificate(), missing, files.ca()),
                    Duration.ofHours(1),
                    TlsEngine.JDK))
        .isInstanceOfSatisfying(
            TlsFileException.class,
            e -> {
              assertThat(e.role()).isEqualTo(Role.PRIVATE_KEY);
              assertThat(e.file()).isEqualTo(missing);
              assertThat(e.reason()).contains("cannot read");
            });
  }

  @Test
  void aMalformedCertificateOrCaIsNamed() throws Exception {
    TestCertificates.NodeFiles files = ca.issue("node-0", dir);
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");

    assertThatThrownBy(
            () ->
                TlsMaterial.load(
                    new TlsMaterial.Files(garbage, files.key(), files.ca()),
                    Duration.ofHours(1),
                    TlsEngine.JDK))
        .isInstanceOfSatisfying(
            TlsFileException.class, e -> assertThat(e.role()).isEqualTo(Role.CERTIFICATE));
    assertThatThrownBy(
            () ->
                TlsMaterial.load(
                    new TlsMaterial.Files(files.certificate(), files.key(), garbage),
                    Duration.ofHours(1),
                    TlsEngine.JDK))
        .isInstanceOfSatisfying(
            TlsFileException.class, e -> assertThat(e.role()).isEqualTo(Role.TRUSTED_CA));
  }

  @Test
  void aKeyInTheOldRsaFormatIsRefusedSayingHowToConvertIt() throws Exception {
    TestCertificates.NodeFiles files = ca.issue("node-0", dir);
    Files.writeString(
        files.key(), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");

    assertThatThrownBy(() -> load(files))
        .isInstanceOf(TlsFileException.class)
        .hasMessageContaining("PKCS#8")
        .hasMessageContaining("openssl pkcs8 -topk8");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefused() throws Exception {
    TestCertificates.NodeFiles files = ca.issue("node-0", dir);
    TestCertificates.NodeFiles other = ca.issue("node-1", dir.resolve("other"));
    Files.copy(other.key(), files.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    assertThatThrownBy(() -> load(files))
        .isInstanceOfSatisfying(
            TlsFileException.class,
            e -> {
              assertThat(e.role()).isEqualTo(Role.PRIVATE_KEY);
              assertThat(e.reason()).contains("is not the key of the certificate");
            });
  }
}
