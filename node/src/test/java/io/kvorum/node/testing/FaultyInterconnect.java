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
 * A real interconnect (gRPC in production) whose links a test can cut and slow ({@link
 * LinkFaults}): each node's transport is the real one inside a {@link FaultyPeerTransport} that
 * consults this interconnect's link table, as Ratis injects faults at its RPC's own seams rather
 * than in the operating system. Stopping a node is real: its server closes, and its peers' calls
 * are refused. Closing the interconnect stops its timers; the nodes must be stopped first.
 */
public final class FaultyInterconnect implements Interconnect, LinkFaults {
  private final Interconnect real;
  private final LinkTable links = new LinkTable();
  private final Map<NodeId, Integer> serving = new ConcurrentHashMap<>();
  private final List<FaultyPeerTransport> transports = new CopyOnWriteArrayList<>();
  private final ExecutorService wire =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "faulty-interconnect");
            t.setDaemon(true);
            return t;
          });
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "faulty-interconnect-timer");
            t.setDaemon(true);
            return t;
          });

  public FaultyInterconnect(Interconnect real) {
    this.real = real;
  }

  @Override
  public PeerTransport connect(
      NodeConfig config,
      Clock clock,
      EventLoops loops,
      Threading threading,
      Optional<TlsMaterial> tls,
      MeterRegistry registry) {
    FaultyPeerTransport transport =
        new FaultyPeerTransport(
            real.connect(config, clock, loops, threading, tls, registry),
            config.nodeId(),
            this,
            config.requestTimeout(),
            config.replication().catchUpTimeout());
    transports.add(transport);
    return transport;
  }

  /** The real server; the node counts as serving from its start until it is closed. */
  @Override
  public AutoCloseable serve(
      NodeConfig config,
      Clock clock,
      PeerHandlers handlers,
      EventLoops loops,
      Optional<TlsMaterial> tls,
      MeterRegistry registry) {
    AutoCloseable server = real.serve(config, clock, handlers, loops, tls, registry);
    NodeId id = config.nodeId();
    Integer port = config.grpcPort();
    serving.put(id, port);
    return () -> {
      serving.remove(id, port);
      server.close();
    };
  }

  /** Whether {@code node} serves its peers (it may still be catching up). */
  public boolean serving(NodeId node) {
    return serving.containsKey(node);
  }

  /**
   * Waits until no connection between {@code node} and another serving node is failed, either way,
   * as the in-memory network has it the moment a node serves; gives up quietly after {@code limit}.
   * A returning node's peers reconnect once it says hello, but gRPC fails calls at once until the
   * new connection is up, and a test may call the node's peers the moment it is ready.
   */
  void awaitConnected(NodeId node, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!connected(node) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private boolean connected(NodeId node) {
    for (FaultyPeerTransport transport : transports) {
      for (NodeId peer : serving.keySet()) {
        boolean involved = transport.self().equals(node) != peer.equals(node);
        if (involved && !peer.equals(transport.self()) && !transport.connection(peer).reachable()) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public void partition(NodeId a, NodeId b) {
    links.partition(a, b);
  }

  /** Restores every link and tells each transport the peers it reaches again, as a network does. */
  @Override
  public void heal() {
    links.clear();
    for (FaultyPeerTransport transport : transports) {
      for (NodeId peer : serving.keySet()) {
        if (!peer.equals(transport.self()) && transport.state(peer).reachable()) {
          transport.reachable(peer);
        }
      }
    }
  }

  @Override
  public void delay(NodeId from, NodeId to, Duration delay) {
    links.delay(from, to, delay);
  }

  boolean isCut(NodeId from, NodeId to) {
    return links.isCut(from, to);
  }

  boolean faulted(NodeId a, NodeId b) {
    return links.faulted(a, b);
  }

  /** The node of this cluster serving on {@code port}, for a join that names only an address. */
  Optional<NodeId> servingOn(int port) {
    return serving.entrySet().stream()
        .filter(e -> e.getValue() == port)
        .map(Map.Entry::getKey)
        .findFirst();
  }

  /**
   * Runs {@code delivery} as the link from {@code from} to {@code to} allows: never if it is cut,
   * after its delay if slowed, else at once on this thread.
   */
  void carry(NodeId from, NodeId to, Runnable delivery) {
    if (links.isCut(from, to)) {
      return;
    }
    Duration delay = links.delayOf(from, to);
    if (delay.isZero()) {
      delivery.run();
    } else {
      timers.schedule(() -> wire.execute(delivery), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  void forget(FaultyPeerTransport transport) {
    transports.remove(transport);
  }

  /** Stops the threads that carry delayed messages. */
  public void close() {
    timers.shutdownNow();
    wire.shutdownNow();
  }
}
