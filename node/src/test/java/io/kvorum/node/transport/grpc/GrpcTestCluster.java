package io.kvorum.node.transport.grpc;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ServedNode;
import io.kvorum.node.transport.TransportTestCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@link TransportTestCluster} that talks real gRPC: each node a {@link GrpcReplicaServer} on a
 * free port of 127.0.0.1 (the same port again after a stop) and a {@link GrpcPeerTransport} to the
 * others.
 */
final class GrpcTestCluster extends TransportTestCluster {
  static final int MAX_VALUE = 16 << 20;

  /** As the node sizes it: the largest value, the largest key, and room for framing. */
  static final int MAX_MESSAGE = MAX_VALUE + (1 << 10) + (64 << 10);

  /**
   * The event loops of every test cluster's servers and channels, as a node's: two, so a node's
   * peers get a channel on each. Shared by the tests of this JVM and never stopped (daemons).
   */
  static final EventLoops LOOPS = EventLoops.start("kvorum-test-io", 2);

  private final Map<NodeId, Integer> ports = new ConcurrentHashMap<>();

  private GrpcTestCluster() {}

  /**
   * Starts {@code size} nodes.
   *
   * @param callTimeout the transports' deadline for a read, a write or a scan batch
   * @param walls may give a node its own wall clock (null: the system's)
   */
  static GrpcTestCluster start(
      int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    GrpcTestCluster cluster = new GrpcTestCluster();
    cluster.boot(size, callTimeout, walls);
    return cluster;
  }

  /** The port {@code id}'s server listens on. */
  int port(NodeId id) {
    return ports.get(id);
  }

  @Override
  protected AutoCloseable serve(Node node, ServedNode service) {
    return GrpcReplicaServer.start(
        node.id(),
        ports.computeIfAbsent(node.id(), id -> NodeProcess.freePort()),
        ServedNode.handlers(service),
        node.clock(),
        MAX_MESSAGE,
        LOOPS,
        Optional.empty(),
        PeerProtocol.current(new SimpleMeterRegistry()));
  }

  @Override
  protected List<Member> members(List<Node> all) {
    return all.stream().map(n -> new Member(n.id(), "127.0.0.1", port(n.id()))).toList();
  }

  @Override
  protected PeerTransport connect(Node node, List<Member> members, Duration callTimeout) {
    return new GrpcPeerTransport(
        new Topology(node.id(), members),
        node.clock(),
        callTimeout,
        HELLO_TIMEOUT,
        MAX_MESSAGE,
        LOOPS,
        true,
        Optional.empty(),
        PeerProtocol.current(new SimpleMeterRegistry()));
  }
}
