package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import ch.qos.logback.classic.Level;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.CapturedLog;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.TestCertificates;
import io.kvorum.node.tls.TlsEngine;
import io.kvorum.node.tls.TlsMaterial;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerCalls;
import io.kvorum.node.transport.ReplicaServices;
import io.kvorum.node.transport.ServedNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.OpenSsl;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual TLS on the inter-node wire, on both engines: peers with certificates of the cluster's CA
 * talk; a peer with another CA's certificate, with none, or dialling a host its peer's certificate
 * does not name, is refused at the handshake, and never reaches the replica service.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GrpcTlsTest {
  private static final NodeId SERVER = NodeId.of("server");
  private static final NodeId CLIENT = NodeId.of("client");

  @TempDir Path dir;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final AtomicInteger writesServed = new AtomicInteger();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : resources.reversed()) {
      resource.close();
    }
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void peersWithCertificatesOfTheClusterCaWriteToEachOther(TlsEngine engine) {
    assumeEngine(engine);
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    int port = serve(material(ca.issue("server", dir.resolve("server")), engine));

    var client =
        connect("127.0.0.1", port, Optional.of(material(ca.issue("c", dir.resolve("c")), engine)));

    client.write(SERVER, key("k"), value()).join();
    assertThat(writesServed).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void aPeerWithAnotherCasCertificateIsRefusedAndLoggedOnce(TlsEngine engine) {
    assumeEngine(engine);
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    TestCertificates other = TestCertificates.authority("someone-else");
    int port = serve(material(ca.issue("server", dir.resolve("server")), engine));

    try (CapturedLog log = CapturedLog.of(HandshakeRefusals.class)) {
      var intruder =
          connect(
              "127.0.0.1", port, Optional.of(material(other.issue("x", dir.resolve("x")), engine)));
      for (int i = 0; i < 3; i++) {
        assertRefused(intruder);
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !log.lines(Level.WARN).isEmpty());
      assertThat(log.lines(Level.WARN))
          .singleElement()
          .asString()
          .contains("refused an inter-node connection from 127.0.0.1 at the TLS handshake");
    }
    assertThat(writesServed).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void aPeerWithoutCertificateOrTlsIsRefused(TlsEngine engine) {
    assumeEngine(engine);
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    int port = serve(material(ca.issue("server", dir.resolve("server")), engine));

    try (CapturedLog log = CapturedLog.of(HandshakeRefusals.class)) {
      assertRefused(connect("127.0.0.1", port, Optional.empty()));
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !log.lines(Level.WARN).isEmpty());
    }
    assertThat(writesServed).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void aClientRefusesAPeerWhoseCertificateDoesNotNameTheHostDialled(TlsEngine engine) {
    assumeEngine(engine);
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    int port = serve(material(ca.issue("server", dir.resolve("server")), engine));

    // The certificate names 127.0.0.1 and localhost; 127.0.0.2 reaches the same socket.
    var client =
        connect("127.0.0.2", port, Optional.of(material(ca.issue("c", dir.resolve("c")), engine)));

    assertRefused(client);
    assertThat(writesServed).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void aRenewedCertificateIsPresentedFromTheNextHandshakeWhileOpenStreamsGoOn(TlsEngine engine)
      throws Exception {
    assumeEngine(engine);
    TestCertificates ca = TestCertificates.authority("kvorum-test-ca");
    Path serverFiles = dir.resolve("server");
    TlsMaterial server = material(ca.issue("server", serverFiles), engine, Duration.ofMillis(100));
    int port = serve(server);
    TlsMaterial clientMaterial = material(ca.issue("c", dir.resolve("c")), engine);
    var client = connect("127.0.0.1", port, Optional.of(clientMaterial));
    client.write(SERVER, key("before"), value()).join();

    TestCertificates.NodeFiles renewed = ca.issue("server", serverFiles);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.certificate().equals(renewed.issued()));

    client.write(SERVER, key("on-the-open-stream"), value()).join();
    assertThat(presentedBy(port, clientMaterial)).isEqualTo(renewed.issued());
    connect("127.0.0.1", port, Optional.of(clientMaterial))
        .write(SERVER, key("new-connection"), value())
        .join();
    assertThat(writesServed).hasValue(3);
  }

  /** The certificate the server at {@code port} presents in a new handshake. */
  private static X509Certificate presentedBy(int port, TlsMaterial client) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        new KeyManager[] {client.keyManager()}, new TrustManager[] {client.trustManager()}, null);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setApplicationProtocols(new String[] {"h2"});
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private static void assumeEngine(TlsEngine engine) {
    if (engine == TlsEngine.OPENSSL) {
      assumeThat(OpenSsl.isAvailable()).as("netty-tcnative loads here").isTrue();
    }
  }

  private void assertRefused(PeerCalls client) {
    assertThatThrownBy(() -> client.write(SERVER, key("k"), value()).join())
        .hasRootCauseInstanceOf(Exception.class);
  }

  private TlsMaterial material(TestCertificates.NodeFiles files, TlsEngine engine) {
    return material(files, engine, Duration.ofMinutes(1));
  }

  private TlsMaterial material(
      TestCertificates.NodeFiles files, TlsEngine engine, Duration reloadInterval) {
    try {
      TlsMaterial material =
          TlsMaterial.load(
              new TlsMaterial.Files(files.certificate(), files.key(), files.ca()),
              reloadInterval,
              engine);
      resources.add(material);
      return material;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private int serve(TlsMaterial material) {
    ServedNode service =
        new ReplicaServices.Forwarding() {
          private final ServedNode failing =
              ReplicaServices.failing(() -> new IllegalStateException("not in this test"));

          @Override
          protected ServedNode delegate() {
            return failing;
          }

          @Override
          public CompletableFuture<Void> write(Key key, Record record) {
            writesServed.incrementAndGet();
            return CompletableFuture.completedFuture(null);
          }

          @Override
          public CompletableFuture<Void> writeAll(List<Entry> writes) {
            writesServed.addAndGet(writes.size());
            return CompletableFuture.completedFuture(null);
          }
        };
    int port = NodeProcess.freePort();
    GrpcReplicaServer server =
        GrpcReplicaServer.start(
            SERVER,
            port,
            ServedNode.handlers(service),
            clock(),
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            Optional.of(GrpcTls.of(material)),
            PeerProtocol.current(new SimpleMeterRegistry()));
    resources.add(server);
    return port;
  }

  private PeerCalls connect(String host, int port, Optional<TlsMaterial> material) {
    GrpcPeerTransport transport =
        new GrpcPeerTransport(
            new Topology(
                CLIENT,
                List.of(new Member(CLIENT, "127.0.0.1", 1), new Member(SERVER, host, port))),
            clock(),
            Duration.ofSeconds(2),
            Duration.ofSeconds(2),
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            false,
            material.map(GrpcTls::of),
            PeerProtocol.current(new SimpleMeterRegistry()));
    resources.add(transport);
    return new PeerCalls(transport, CLIENT);
  }

  private static HybridLogicalClock clock() {
    return HybridLogicalClock.start(
        new MemoryCeilingStore(),
        System::currentTimeMillis,
        Duration.ofSeconds(1),
        Duration.ofMinutes(1));
  }

  private static Key key(String key) {
    return Key.utf8(key);
  }

  private static Record value() {
    return Record.value(Version.of(System.currentTimeMillis(), 0), new byte[] {1});
  }
}
