package io.kvorum.node.transport;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Nodes {@code n1}…{@code nN} in this JVM joined by the transport under test: each with its own
 * in-memory storage, hints and clock, and the parts the server's bootstraps build on them (hinted
 * handoff, anti-entropy; {@link NodeParts}), serving what a node serves its peers but membership,
 * which a test can replace to inject faults, and a transport to the others. A node's served side
 * can be stopped (its connections break) and started again. Subclasses say how a node is served and
 * connected.
 */
public abstract class TransportTestCluster implements AutoCloseable {
  /** How long a hello may take in these clusters. */
  public static final Duration HELLO_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How far ahead of a node's wall clock its clock follows a peer's and a version may be: wide, so
   * that tests can carry clocks some seconds apart.
   */
  public static final Duration MAX_CLOCK_OFFSET = Duration.ofMinutes(1);

  private final List<Node> nodes = new ArrayList<>();

  /** One node: its storage, hints and clock, what it serves, and its transport to the others. */
  public static final class Node {
    private final NodeId id;
    private final InMemoryStorageEngine storage = new InMemoryStorageEngine();
    private final InMemoryHintStore hints = new InMemoryHintStore();
    private final InMemoryAcceptorStore acceptors = new InMemoryAcceptorStore();
    private final HybridLogicalClock clock;
    private final ReplicaServices.Switchable service = new ReplicaServices.Switchable();
    private PeerTransport transport;
    private NodeParts parts;
    private AutoCloseable served;

    private Node(NodeId id, LongSupplier wall) {
      this.id = id;
      this.clock =
          HybridLogicalClock.start(
              new MemoryCeilingStore(), wall, Duration.ofSeconds(1), MAX_CLOCK_OFFSET);
    }

    public NodeId id() {
      return id;
    }

    public InMemoryStorageEngine storage() {
      return storage;
    }

    public InMemoryHintStore hints() {
      return hints;
    }

    public HybridLogicalClock clock() {
      return clock;
    }

    /** Its transport to the others, called one protocol operation at a time. */
    public PeerCalls transport() {
      return new PeerCalls(transport, id);
    }

    /** What this node serves from now on (its own storage and hints: {@link #serveNormally}). */
    public void serve(ServedNode service) {
      this.service.use(service);
    }

    /** Serves this node's own storage and hints again, after a fault. */
    public void serveNormally() {
      service.use(normalService());
    }

    /**
     * This node's own storage and hints, as it serves them to its peers, with its side of
     * anti-entropy (writes served keep its hash trees up to date), and no membership.
     */
    public ServedNode normalService() {
      return ServedNode.of(parts.served());
    }

    /** This node's anti-entropy (its trees are built; its rounds are an hour apart). */
    public AntiEntropy repair() {
      return parts.replication().antiEntropy();
    }
  }

  /**
   * Starts serving {@code node}'s {@code service} to the others (on the same address as before, if
   * it was served before); closing the result is the node going down.
   */
  protected abstract AutoCloseable serve(Node node, ServedNode service);

  /** The address of every node of {@code all}, once each is served. */
  protected abstract List<Member> members(List<Node> all);

  /** {@code node}'s transport to every other node of {@code members}. */
  protected abstract PeerTransport connect(Node node, List<Member> members, Duration callTimeout);

  /**
   * Starts {@code size} nodes.
   *
   * @param callTimeout the transports' deadline for a read, a write or a scan batch
   * @param walls may give a node its own wall clock (null: the system's)
   */
  protected final void boot(int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    try {
      for (int i = 1; i <= size; i++) {
        NodeId id = NodeId.of("n" + i);
        LongSupplier wall = walls.apply(id);
        Node node = new Node(id, wall != null ? wall : System::currentTimeMillis);
        nodes.add(node);
        start(id);
      }
      List<Member> members = members(List.copyOf(nodes));
      for (Node node : nodes) {
        node.transport = connect(node, members, callTimeout);
        node.parts =
            NodeParts.build(
                TestConfig.in(Path.of("unused"))
                    .topology(new Topology(node.id, members))
                    .requestTimeout(callTimeout)
                    .catchUpTimeout(HELLO_TIMEOUT)
                    .maxClockOffset(MAX_CLOCK_OFFSET)
                    .build(),
                new LocalStorage(node.storage, node.hints, node.acceptors),
                node.clock,
                node.transport);
        node.repair().start().join();
        node.serveNormally();
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  public Node node(NodeId id) {
    return nodes.stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow();
  }

  /** {@code id} goes down: its served side stops, breaking the connections to it. */
  public void stop(NodeId id) {
    Node node = node(id);
    if (node.served != null) {
      closeServed(node.served);
      node.served = null;
    }
  }

  /** {@code id} comes back, serving what it served before. */
  public void start(NodeId id) {
    Node node = node(id);
    node.served = serve(node, node.service);
  }

  @Override
  public void close() {
    // Clients first: a server waits for the streams still open to it before it stops.
    nodes.stream().filter(n -> n.transport != null).forEach(n -> n.transport.close());
    nodes.stream().filter(n -> n.parts != null).forEach(n -> n.parts.close());
    nodes.forEach(n -> stop(n.id));
    nodes.forEach(n -> n.storage.close());
  }

  private static void closeServed(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop serving", e);
    }
  }
}
