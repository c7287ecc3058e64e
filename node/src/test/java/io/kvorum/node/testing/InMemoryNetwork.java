package io.kvorum.node.testing;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.server.Interconnect;
import io.kvorum.node.server.Threading;
import io.kvorum.node.tls.TlsMaterial;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The nodes of a test cluster talking to each other in one JVM, with the faults a real network has:
 * a node that is down refuses connections (calls fail at once); a partition drops messages (calls
 * fail at their deadline, and a request may still arrive while its answer is lost); links can be
 * slowed. Every message carries its sender's clock, as on the wire.
 */
public final class InMemoryNetwork implements Interconnect, LinkFaults {
  /** A node's served side. */
  record Endpoint(PeerHandlers handlers, Clock clock) {}

  private final Map<NodeId, Endpoint> endpoints = new ConcurrentHashMap<>();
  private final Map<String, NodeId> hosts = new ConcurrentHashMap<>();
  private final LinkTable links = new LinkTable();
  private final List<InMemoryPeerTransport> transports = new CopyOnWriteArrayList<>();
  private final ExecutorService wire =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "in-memory-network");
            t.setDaemon(true);
            return t;
          });
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "in-memory-network-timer");
            t.setDaemon(true);
            return t;
          });

  @Override
  public PeerTransport connect(
      NodeConfig config,
      Clock clock,
      EventLoops loops,
      Threading threading,
      Optional<TlsMaterial> tls,
      MeterRegistry registry) {
    return connect(config, clock);
  }

  /** The client side of the node {@code config} describes (no event loops needed here). */
  public PeerTransport connect(NodeConfig config, Clock clock) {
    return connect(
        config.nodeId(), clock, config.requestTimeout(), config.replication().catchUpTimeout());
  }

  /**
   * The client side of node {@code self}.
   *
   * @param callTimeout deadline of a read, a write or a scan batch
   * @param helloTimeout deadline of a hello
   */
  public PeerTransport connect(
      NodeId self, Clock clock, Duration callTimeout, Duration helloTimeout) {
    InMemoryPeerTransport transport =
        new InMemoryPeerTransport(self, clock, this, callTimeout, helloTimeout);
    transports.add(transport);
    return transport;
  }

  @Override
  public AutoCloseable serve(
      NodeConfig config,
      Clock clock,
      PeerHandlers handlers,
      EventLoops loops,
      Optional<TlsMaterial> tls,
      MeterRegistry registry) {
    return serve(config, clock, handlers);
  }

  /** Serves the node {@code config} describes until closed (no event loops needed here). */
  public AutoCloseable serve(NodeConfig config, Clock clock, PeerHandlers handlers) {
    config.topology().member(config.nodeId()).ifPresent(m -> hosts.put(m.host(), m.id()));
    return serve(config.nodeId(), clock, handlers);
  }

  /**
   * Serves node {@code id} until closed; closing it is the node going down: calls waiting on it
   * fail at once, as when a connection breaks, and later ones are refused.
   */
  public AutoCloseable serve(NodeId id, Clock clock, PeerHandlers handlers) {
    Endpoint endpoint = new Endpoint(handlers, clock);
    endpoints.put(id, endpoint);
    announce(id);
    return () -> {
      if (endpoints.remove(id, endpoint)) {
        transports.forEach(transport -> transport.disconnected(id));
      }
    };
  }

  @Override
  public void partition(NodeId a, NodeId b) {
    links.partition(a, b);
  }

  @Override
  public void heal() {
    links.clear();
    endpoints.keySet().forEach(this::announce);
  }

  @Override
  public void delay(NodeId from, NodeId to, Duration delay) {
    links.delay(from, to, delay);
  }

  /** The node serving under host name {@code host}, for a join that names only an address. */
  Optional<NodeId> hostOf(String host) {
    return Optional.ofNullable(hosts.get(host));
  }

  Optional<Endpoint> endpoint(NodeId node) {
    return Optional.ofNullable(endpoints.get(node));
  }

  boolean isCut(NodeId from, NodeId to) {
    return links.isCut(from, to);
  }

  /** Delivers a message from {@code from} to {@code to}: after the link's delay, unless cut. */
  void carry(NodeId from, NodeId to, Runnable delivery) {
    if (isCut(from, to)) {
      return;
    }
    Duration delay = links.delayOf(from, to);
    if (delay.isZero()) {
      wire.execute(delivery);
    } else {
      timers.schedule(() -> wire.execute(delivery), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
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
