package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void portsArePickedFreeDistinctAndBelowTheEphemeralRange() {
    List<Integer> ports = LoopbackPorts.pick(6);
    assertThat(ports).hasSize(6).doesNotHaveDuplicates();
    assertThat(ports)
        .allSatisfy(
            port ->
                assertThat(port)
                    .isBetween(LoopbackPorts.FIRST, LoopbackPorts.ephemeralLow() - 1)
                    .satisfies(p -> assertThat(LoopbackPorts.free(p)).isTrue()));
  }

  @Test
  void aPortSomethingListensOnIsNotFree() throws Exception {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      assertThat(LoopbackPorts.free(socket.getLocalPort())).isFalse();
    }
  }
}
