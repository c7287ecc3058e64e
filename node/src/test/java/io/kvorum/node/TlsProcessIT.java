package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.api.ClientTls;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.ProcessCluster;
import io.kvorum.node.testing.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §9 on real processes: a cluster with mutual TLS serves quorum reads and writes and keeps
 * serving across a certificate renewal on disk; a process with another CA's certificate, or with
 * none, is refused at the handshake (logged once by the node) and changes nothing; the client port
 * over TLS; bad TLS files exit 2 naming the file.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TlsProcessIT {
  private static final Pattern REFUSAL =
      Pattern.compile("refused an inter-node connection from 127\\.0\\.0\\.1 at the TLS handshake");

  @TempDir Path work;

  private static String[] flags(TestCertificates.NodeFiles files, String... more) {
    List<String> flags = new ArrayList<>(List.of(files.flags()));
    flags.addAll(List.of("--tls-reload-interval", "1s"));
    flags.addAll(List.of(more));
    return flags.toArray(String[]::new);
  }

  @Test
  void aMutualTlsClusterServesQuorumsAndKeepsServingAcrossACertificateRenewal() throws Exception {
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    Path tls = work.resolve("tls");
    // One certificate for every node, as the chart's cert-manager Certificate gives them.
    TestCertificates.NodeFiles files = ca.issue("kvorum", tls);
    try (ProcessCluster cluster = new ProcessCluster(work, 3, flags(files)).start()) {
      writeAndRead(cluster, "before", Consistency.of(2, 3));
      writeAndRead(cluster, "all-before", Consistency.of(3, 3));

      TestCertificates.NodeFiles renewed = ca.issue("kvorum", tls);
      String serial = renewed.issued().getSerialNumber().toString(16);
      for (int i = 0; i < 3; i++) {
        NodeProcess node = cluster.node(i);
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> node.stdout().contains("now presenting CN=kvorum (serial " + serial));
      }
      // Streams opened before the renewal go on; a restarted node handshakes anew both ways.
      writeAndRead(cluster, "after", Consistency.of(3, 3));
      cluster.node(1).kill();
      cluster.restart(1);
      // A peer's channel to the killed process fails its next call and reconnects (a new
      // handshake) within its backoff: 3/3 works again once every channel did.
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(() -> writeAndRead(cluster, "restarted", Consistency.of(3, 3)));
      try (KvorumClient kv = cluster.client(1)) {
        assertThat(kv.getUtf8("before/7")).hasValue("v7");
      }
    }
  }

  @Test
  void processesWithAnotherCasCertificateOrWithoutOneAreRefusedAndChangeNothing() throws Exception {
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    TestCertificates.NodeFiles files = ca.issue("kvorum", work.resolve("tls"));
    TestCertificates.NodeFiles foreign =
        TestCertificates.authority("someone-else").issue("kvorum", work.resolve("foreign"));
    try (ProcessCluster cluster = new ProcessCluster(work, 3, flags(files)).start()) {
      int grpc = grpcPortOf(cluster.node(0));
      List<String[]> intruders = List.of(flags(foreign), new String[0]);
      for (int n = 0; n < intruders.size(); n++) {
        int http = NodeProcess.freePort();
        int ownGrpc = NodeProcess.freePort();
        List<String> args =
            new ArrayList<>(
                List.of(
                    "--node-id",
                    "intruder",
                    "--http-host",
                    "127.0.0.1",
                    "--http-port",
                    String.valueOf(http),
                    "--grpc-port",
                    String.valueOf(ownGrpc),
                    "--data-dir",
                    work.resolve("intruder-" + n).toString(),
                    "--catch-up-timeout",
                    "2s",
                    // The intruder believes it shares every key with node-0.
                    "--peers",
                    "intruder=127.0.0.1:" + ownGrpc + ",node-0=127.0.0.1:" + grpc));
        args.addAll(List.of(intruders.get(n)));
        try (NodeProcess intruder =
            NodeProcess.launch(work.resolve("logs"), http, Map.of(), args.toArray(String[]::new))) {
          intruder.awaitReady();
          try (KvorumClient kv = intruder.client()) {
            for (int i = 0; i < 5; i++) {
              String key = "stolen/" + n + "/" + i;
              assertThatThrownBy(
                      () -> kv.put(key.getBytes(UTF_8), "x".getBytes(UTF_8), Consistency.of(2, 2)))
                  .as("a write through node-0 from intruder %d", n)
                  .isInstanceOfSatisfying(
                      KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(504));
            }
          }
        }
        int causes = n + 1;
        Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> count(REFUSAL, cluster.node(0).stdout()) >= causes);
      }
      // Many attempts (every write, every reconnect), one line per cause.
      String log = cluster.node(0).stdout();
      assertThat(count(REFUSAL, log))
          .as("refusals logged: %s", log.lines().filter(l -> REFUSAL.matcher(l).find()).toList())
          .isEqualTo(2);
      try (KvorumClient kv = cluster.client(0)) {
        for (int n = 0; n < 2; n++) {
          for (int i = 0; i < 5; i++) {
            assertThat(kv.get(("stolen/" + n + "/" + i).getBytes(UTF_8), Consistency.of(3, 3)))
                .isEmpty();
          }
        }
      }
    }
  }

  @Test
  void theClientPortServesTlsWithTheNodesCertificateAndRefusesPlainHttp() throws Exception {
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    TestCertificates.NodeFiles files = ca.issue("kvorum", work.resolve("tls"));
    try (NodeProcess node =
            NodeProcess.launchSingle(
                work.resolve("n1"),
                work.resolve("logs"),
                "n1",
                Map.of(),
                Stream.concat(Stream.of("--http-tls"), Stream.of(flags(files)))
                    .toArray(String[]::new));
        HttpClient https =
            HttpClient.newBuilder().sslContext(ClientTls.trustingPem(files.ca())).build();
        HttpClient plain = HttpClient.newHttpClient()) {
      URI base = URI.create("https://127.0.0.1:" + node.httpPort());
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptionsInstanceOf(IOException.class)
          .failFast("the node exited", () -> !node.isAlive())
          .until(() -> get(https, base.resolve("/health/ready")).statusCode() == 200);

      HttpResponse<String> put =
          https.send(
              HttpRequest.newBuilder(base.resolve("/v0/entity?id=secret"))
                  .PUT(HttpRequest.BodyPublishers.ofString("over tls"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(put.statusCode()).isEqualTo(201);
      HttpResponse<String> got = get(https, base.resolve("/v0/entity?id=secret"));
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo("over tls");

      assertThatThrownBy(
              () -> get(plain, URI.create("http://127.0.0.1:" + node.httpPort() + "/health/live")))
          .isInstanceOf(IOException.class);
      curlWithCaCert(files.ca(), base.resolve("/v0/entity?id=secret"), "over tls");
    }
  }

  @Test
  void badTlsFilesExitTwoWithOneLineNamingTheFile() throws Exception {
    TestCertificates.NodeFiles files =
        TestCertificates.authority("kvorum-test-ca").issue("kvorum", work.resolve("tls"));
    Path garbage = Files.writeString(work.resolve("garbage.pem"), "-----BEGIN nothing\n");

    assertExitsTwoNaming(
        "--tls-cert '" + files.certificate() + "'",
        "--tls-cert",
        files.certificate().toString(),
        "--tls-ca",
        files.ca().toString());
    assertExitsTwoNaming(
        "--tls-key '" + garbage + "'",
        "--tls-cert",
        files.certificate().toString(),
        "--tls-key",
        garbage.toString(),
        "--tls-ca",
        files.ca().toString());
    Path missing = work.resolve("absent-ca.crt");
    assertExitsTwoNaming(
        "--tls-ca '" + missing + "'",
        "--tls-cert",
        files.certificate().toString(),
        "--tls-key",
        files.key().toString(),
        "--tls-ca",
        missing.toString());
    assertExitsTwoNaming("--http-tls 'true'", "--http-tls");
  }

  private void assertExitsTwoNaming(String expected, String... flags) throws Exception {
    int http = NodeProcess.freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--node-id", "n1",
                "--http-port", String.valueOf(http),
                "--grpc-port", String.valueOf(NodeProcess.freePort()),
                "--data-dir", work.resolve("bad").toString()));
    args.addAll(List.of(flags));
    try (NodeProcess node =
        NodeProcess.launch(work.resolve("logs"), http, Map.of(), args.toArray(String[]::new))) {
      assertThat(node.awaitExit()).isEqualTo(2);
      assertThat(node.stderr().lines()).singleElement().asString().contains(expected);
    }
  }

  private static void writeAndRead(ProcessCluster cluster, String prefix, Consistency quorum) {
    for (int node = 0; node < 3; node++) {
      try (KvorumClient kv = cluster.client(node)) {
        for (int i = 0; i < 10; i++) {
          String key = prefix + "/" + i;
          kv.put(key.getBytes(UTF_8), ("v" + i).getBytes(UTF_8), quorum);
          assertThat(kv.get(key.getBytes(UTF_8), quorum).map(v -> new String(v, UTF_8)))
              .hasValue("v" + i);
        }
      }
    }
  }

  private static int grpcPortOf(NodeProcess node) {
    Matcher port =
        Pattern.compile("inter-node gRPC listening on .+?:(\\d+) \\(mutual TLS\\)")
            .matcher(node.stdout());
    assertThat(port.find()).as("node-0 serves gRPC with mutual TLS").isTrue();
    return Integer.parseInt(port.group(1));
  }

  private static int count(Pattern pattern, String text) {
    return (int) pattern.matcher(text).results().count();
  }

  private static HttpResponse<String> get(HttpClient client, URI uri)
      throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** What the docs tell users to run, when curl is installed. */
  private static void curlWithCaCert(Path ca, URI uri, String expected) throws Exception {
    Process curl;
    try {
      curl =
          new ProcessBuilder("curl", "-sS", "--cacert", ca.toString(), uri.toString())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      return; // no curl here: the HttpClient above checked the same
    }
    assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(new String(curl.getInputStream().readAllBytes(), UTF_8)).isEqualTo(expected);
    assertThat(curl.exitValue()).isZero();
  }
}
