package io.kvorum.node.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.TestCertificates;
import io.kvorum.node.tls.TlsEngine;
import io.kvorum.node.tls.TlsMaterial;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a node with TLS on tells its monitoring of its certificate (issue 27). */
class SecurityBootstrapTest {
  @TempDir Path dir;

  @Test
  void exportsWhenThePresentedCertificateExpiresFollowingRenewals() throws Exception {
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    TestCertificates.NodeFiles files = ca.issue("node-0", dir, Duration.ofDays(1));
    try (TlsMaterial material =
        TlsMaterial.load(
            new TlsMaterial.Files(files.certificate(), files.key(), files.ca()),
            Duration.ofMillis(50),
            TlsEngine.JDK)) {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      SecurityBootstrap.bindCertificateExpiry(material, registry);
      Gauge expiry = registry.get("kvorum.tls.certificate.expiry.timestamp").gauge();
      assertThat(expiry.value()).isEqualTo(files.issued().getNotAfter().getTime() / 1e3);
      assertThat(registry.scrape()).contains("kvorum_tls_certificate_expiry_timestamp_seconds ");

      TestCertificates.NodeFiles renewed = ca.issue("node-0", dir, Duration.ofDays(90));
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> expiry.value() == renewed.issued().getNotAfter().getTime() / 1e3);
    }
  }
}
