package io.kvorum.node.transport.grpc;

import io.kvorum.node.clock.CeilingStore;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.LocalReplicaService;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Nodes {@code n1}…{@code nN} of a cluster in this JVM that talk real gRPC over free ports of
 * 127.0.0.1: each with its own in-memory storage, hints and clock, a {@link GrpcReplicaServer}
 * serving a {@link LocalReplicaService} (replaceable, to inject faults), and a {@link
 * GrpcPeerTransport} to the others. A node's server can be stopped and started again on its port.
 */
final class GrpcTestCluster implements AutoCloseable {
  static final int MAX_VALUE = 16 << 20;

  /** As the node sizes it: the largest value, the largest key, and room for framing. */
  static final int MAX_MESSAGE = MAX_VALUE + (1 << 10) + (64 << 10);

  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "grpc-test-timer");
            t.setDaemon(true);
            return t;
          });
  private final List<Node> nodes = new ArrayList<>();

  /** One node: its storage, hints and clock, its server, and its transport to the others. */
  static final class Node {
    final NodeId id;
    final InMemoryStorageEngine storage = new InMemoryStorageEngine();
    final InMemoryHintStore hints = new InMemoryHintStore();
    final HybridLogicalClock clock;
    final ReplicaServices.Switchable service = new ReplicaServices.Switchable();
    GrpcReplicaServer server;
    int port;
    GrpcPeerTransport transport;
    HintedHandoff handoff;

    private Node(NodeId id, LongSupplier wall) {
      this.id = id;
      this.clock =
          HybridLogicalClock.start(
              new MemoryCeiling(), wall, Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    /** Starts the server: on a free port the first time, on the same port after a stop. */
    void startServer() {
      server = GrpcReplicaServer.start(id, port, service, clock, MAX_MESSAGE, 2);
      port = server.port();
    }

    void stopServer() {
      if (server != null) {
        server.close();
        server = null;
      }
    }

    /** Serves this node's own storage and hints again, after a fault. */
    void serveNormally() {
      service.use(new LocalReplicaService(storage, handoff));
    }
  }

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
    try {
      cluster.boot(size, callTimeout, walls);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void boot(int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    for (int i = 1; i <= size; i++) {
      NodeId id = NodeId.of("n" + i);
      LongSupplier wall = walls.apply(id);
      Node node = new Node(id, wall != null ? wall : System::currentTimeMillis);
      nodes.add(node);
      node.startServer();
    }
    List<Member> members = nodes.stream().map(n -> new Member(n.id, "127.0.0.1", n.port)).toList();
    for (Node node : nodes) {
      node.transport =
          new GrpcPeerTransport(
              new Topology(node.id, members),
              node.clock,
              timers,
              callTimeout,
              Duration.ofSeconds(10),
              MAX_MESSAGE,
              2);
      node.handoff =
          new HintedHandoff(
              node.hints,
              node.transport,
              node.clock::wallMillis,
              new HintedHandoff.Settings(Duration.ofHours(3), 100_000),
              members.stream().map(Member::id).filter(id -> !id.equals(node.id)).toList(),
              new SimpleMeterRegistry());
      node.serveNormally();
    }
  }

  Node node(NodeId id) {
    return nodes.stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow();
  }

  @Override
  public void close() {
    // Clients first: a server waits for the streams still open to it before it stops.
    nodes.stream().filter(n -> n.transport != null).forEach(n -> n.transport.close());
    nodes.forEach(Node::stopServer);
    nodes.forEach(n -> n.storage.close());
    timers.shutdownNow();
  }

  private static final class MemoryCeiling implements CeilingStore {
    private volatile long ceiling;

    @Override
    public long load() {
      return ceiling;
    }

    @Override
    public void store(long ceilingMillis) {
      ceiling = ceilingMillis;
    }
  }
}
