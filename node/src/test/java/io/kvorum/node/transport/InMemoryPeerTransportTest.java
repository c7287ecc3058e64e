package io.kvorum.node.transport;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.InMemoryNetwork;
import io.kvorum.node.topology.Member;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

/** The contract, bound to the in-memory network the cluster tests run on. */
class InMemoryPeerTransportTest extends PeerTransportContract {
  @Override
  protected TransportTestCluster start(
      int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    return InMemoryTestCluster.start(size, callTimeout, walls);
  }

  /** Nodes joined by an {@link InMemoryNetwork}. */
  private static final class InMemoryTestCluster extends TransportTestCluster {
    private final InMemoryNetwork network = new InMemoryNetwork();

    static InMemoryTestCluster start(
        int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
      InMemoryTestCluster cluster = new InMemoryTestCluster();
      cluster.boot(size, callTimeout, walls);
      return cluster;
    }

    @Override
    protected AutoCloseable serve(Node node, ServedNode service) {
      return network.serve(node.id(), node.clock(), ServedNode.handlers(service));
    }

    @Override
    protected List<Member> members(List<Node> all) {
      return all.stream().map(n -> new Member(n.id(), n.id() + ".test", 9090)).toList();
    }

    @Override
    protected PeerTransport connect(Node node, List<Member> members, Duration callTimeout) {
      return network.connect(node.id(), node.clock(), callTimeout, HELLO_TIMEOUT);
    }
  }
}
