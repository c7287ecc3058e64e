package io.kvorum.node.testing;

import io.kvorum.node.NodeBootstrap;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The nodes of a test cluster talking to each other in one JVM, with the faults a real network has:
 * a node that is down refuses connections (calls fail at once); a partition drops messages (calls
 * fail at their deadline, and a request may still arrive while its answer is lost); links can be
 * slowed. Every message carries its sender's clock, as on the wire.
 */
public final class InMemoryNetwork implements NodeBootstrap.Interconnect {
  /** A node's served side. */
  record Endpoint(ReplicaService service, Clock clock) {}

  /** A directed link. */
  private record Link(NodeId from, NodeId to) {}

  private final Map<NodeId, Endpoint> endpoints = new ConcurrentHashMap<>();
  private final Set<Link> cut = ConcurrentHashMap.newKeySet();
  private final Map<Link, Duration> delays = new ConcurrentHashMap<>();
  private final List<InMemoryPeerTransport> transports = new CopyOnWriteArrayList<>();
  final ExecutorService wire =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "in-memory-network");
            t.setDaemon(true);
            return t;
          });
  final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "in-memory-network-timer");
            t.setDaemon(true);
            return t;
          });

  @Override
  public PeerTransport connect(NodeConfig config, Clock clock, ScheduledExecutorService unused) {
    InMemoryPeerTransport transport =
        new InMemoryPeerTransport(
            config.nodeId(),
            clock,
            this,
            config.requestTimeout(),
            config.replication().catchUpTimeout());
    transports.add(transport);
    return transport;
  }

  @Override
  public AutoCloseable serve(NodeConfig config, Clock clock, ReplicaService service) {
    NodeId id = config.nodeId();
    Endpoint endpoint = new Endpoint(service, clock);
    endpoints.put(id, endpoint);
    announce(id);
    return () -> endpoints.remove(id, endpoint);
  }

  /** Cuts both directions between {@code a} and {@code b}. */
  public void partition(NodeId a, NodeId b) {
    cut.add(new Link(a, b));
    cut.add(new Link(b, a));
  }

  /** Cuts {@code node} from every other node. */
  public void isolate(NodeId node, List<NodeId> others) {
    others.forEach(other -> partition(node, other));
  }

  /** Restores every link and removes every delay. */
  public void heal() {
    cut.clear();
    delays.clear();
    endpoints.keySet().forEach(this::announce);
  }

  /** Messages from {@code from} to {@code to} take {@code delay} to arrive. */
  public void delay(NodeId from, NodeId to, Duration delay) {
    delays.put(new Link(from, to), delay);
  }

  Optional<Endpoint> endpoint(NodeId node) {
    return Optional.ofNullable(endpoints.get(node));
  }

  boolean isCut(NodeId from, NodeId to) {
    return cut.contains(new Link(from, to));
  }

  Duration delay(NodeId from, NodeId to) {
    return delays.getOrDefault(new Link(from, to), Duration.ZERO);
  }

  /** Tells every transport that {@code node} can be reached (it started, or a partition healed). */
  private void announce(NodeId node) {
    for (InMemoryPeerTransport transport : transports) {
      if (!transport.self().equals(node) && transport.state(node).reachable()) {
        transport.reachable(node);
      }
    }
  }
}
