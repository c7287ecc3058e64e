package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerHandlers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code --grpc-host}: the inter-node listener binds one address, and connections to the peers
 * leave from it, so a node on a host with several addresses has one identity.
 */
class GrpcHostTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");

  @Test
  void theListenerAnswersOnItsAddressOnly() throws Exception {
    int port = NodeProcess.freePort();
    try (GrpcReplicaServer server =
        GrpcReplicaServer.start(
            N1,
            new InetSocketAddress("127.0.0.2", port),
            new PeerHandlers(),
            HybridLogicalClock.start(new MemoryCeilingStore()),
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            Optional.empty(),
            PeerProtocol.current(new SimpleMeterRegistry()))) {
      try (Socket on = new Socket("127.0.0.2", port)) {
        assertThat(on.isConnected()).isTrue();
      }
      assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
          .isInstanceOf(ConnectException.class);
    }
  }

  @Test
  void connectionsToPeersLeaveFromIt() throws IOException {
    try (ServerSocket peer = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
      peer.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
      List<Member> members =
          List.of(
              new Member(N1, "127.0.0.3", 9090), new Member(N2, "127.0.0.1", peer.getLocalPort()));
      try (GrpcPeerTransport transport =
              new GrpcPeerTransport(
                  new Topology(N1, members),
                  HybridLogicalClock.start(new MemoryCeilingStore()),
                  Duration.ofSeconds(1),
                  Duration.ofSeconds(1),
                  GrpcTestCluster.MAX_MESSAGE,
                  GrpcTestCluster.LOOPS,
                  false,
                  Optional.empty(),
                  PeerProtocol.current(new SimpleMeterRegistry()),
                  Optional.of("127.0.0.3"));
          Socket accepted = peer.accept()) {
        assertThat(accepted.getInetAddress().getHostAddress()).isEqualTo("127.0.0.3");
      }
    }
  }
}
