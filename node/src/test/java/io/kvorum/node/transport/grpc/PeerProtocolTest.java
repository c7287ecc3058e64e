package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.CapturedLog;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerCalls;
import io.kvorum.node.transport.ReplicaServices;
import io.kvorum.node.transport.ServedNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The protocol in the hello, over gRPC: nodes of neighbouring protocols talk (a node of 0.1.0 sends
 * none: protocol 1); a node refuses a peer of a protocol outside its range, whichever side finds
 * it, with one warning per peer however often it says hello, a counted refusal per hello, and the
 * reason at both ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerProtocolTest {
  private static final NodeId SERVER = NodeId.of("server");
  private static final NodeId CLIENT = NodeId.of("client");

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final AtomicInteger hellosServed = new AtomicInteger();
  private final MeterRegistry serverMetrics = new SimpleMeterRegistry();
  private final MeterRegistry clientMetrics = new SimpleMeterRegistry();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : resources.reversed()) {
      resource.close();
    }
  }

  @Test
  void aNodeOfThisReleaseAndOneOf010WhichSendsAndChecksNoneTalkBothWays() {
    int current = serve(PeerProtocol.current(serverMetrics));
    int old = serve(release010(serverMetrics));

    assertThat(release010(clientMetrics).wire()).as("protocol 1 sends none").isZero();
    assertThat(connect(current, release010(clientMetrics)).hello(SERVER).join()).isZero();
    assertThat(connect(old, PeerProtocol.current(clientMetrics)).hello(SERVER).join()).isZero();

    assertThat(hellosServed).hasValue(2);
    assertThat(refusals(serverMetrics)).isZero();
    assertThat(refusals(clientMetrics)).isZero();
  }

  @Test
  void aServerRefusesTheHelloOfANewerProtocolOnceLoggedAndEachTimeCounted() {
    int port = serve(PeerProtocol.current(serverMetrics));
    PeerCalls newer = connect(port, new PeerProtocol(9, 9, 9, clientMetrics));

    try (CapturedLog log = CapturedLog.of(PeerProtocol.class)) {
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> newer.hello(SERVER).join())
            .isInstanceOf(CompletionException.class)
            .satisfies(
                e -> {
                  assertThat(Failures.unwrap(e)).isInstanceOf(InvalidRequestException.class);
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "client speaks inter-node protocol 9 (a newer release)",
                          "this node " + PeerProtocol.CURRENT);
                });
      }
      assertThat(log.lines(Level.WARN))
          .singleElement()
          .asString()
          .contains("refusing client", "protocol 9", "logged once per peer");
    }
    assertThat(hellosServed).as("the replica service never saw the hello").hasValue(0);
    assertThat(refusals(serverMetrics)).isEqualTo(3);
  }

  @Test
  void aCallerRefusesAPeerThatAnswersWithAProtocolItCannotTalkTo() {
    // A later release that still talks to this one, but that this one cannot talk to.
    int port = serve(new PeerProtocol(9, 1, 9, serverMetrics));
    PeerCalls current = connect(port, PeerProtocol.current(clientMetrics));

    try (CapturedLog log = CapturedLog.of(PeerProtocol.class)) {
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> current.hello(SERVER).join())
            .satisfies(
                e ->
                    assertThat(Failures.rootMessage(e))
                        .contains("server speaks inter-node protocol 9", "docs/compatibility.md"));
      }
      assertThat(log.lines(Level.WARN)).singleElement().asString().contains("refusing server");
    }
    assertThat(refusals(clientMetrics)).isEqualTo(2);
    assertThat(refusals(serverMetrics)).isZero();
  }

  @Test
  void aNodeOfAProtocolOlderThanItsRangeIsRefused() {
    int port = serve(new PeerProtocol(3, 2, 3, serverMetrics));

    assertThatThrownBy(() -> connect(port, release010(clientMetrics)).hello(SERVER).join())
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains("client speaks inter-node protocol 1 (an older release)"));
    assertThat(refusals(serverMetrics)).isEqualTo(1);
  }

  /** kvorum 0.1.0: protocol 1, sent as no field, and no check of its peers'. */
  private static PeerProtocol release010(MeterRegistry registry) {
    return new PeerProtocol(1, 1, Integer.MAX_VALUE, registry);
  }

  private static double refusals(MeterRegistry registry) {
    return registry.find("kvorum.peer.protocol.refusals").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private int serve(PeerProtocol protocol) {
    ServedNode service =
        new ReplicaServices.Forwarding() {
          private final ServedNode failing =
              ReplicaServices.failing(() -> new IllegalStateException("not in this test"));

          @Override
          protected ServedNode delegate() {
            return failing;
          }

          @Override
          public CompletableFuture<Long> hello(NodeId peer) {
            hellosServed.incrementAndGet();
            return CompletableFuture.completedFuture(0L);
          }
        };
    int port = NodeProcess.freePort();
    resources.add(
        GrpcReplicaServer.start(
            SERVER,
            port,
            ServedNode.handlers(service),
            clock(),
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            Optional.empty(),
            protocol));
    return port;
  }

  private PeerCalls connect(int port, PeerProtocol protocol) {
    GrpcPeerTransport transport =
        new GrpcPeerTransport(
            new Topology(
                CLIENT,
                List.of(new Member(CLIENT, "127.0.0.1", 1), new Member(SERVER, "127.0.0.1", port))),
            clock(),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            false,
            Optional.empty(),
            protocol);
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
}
