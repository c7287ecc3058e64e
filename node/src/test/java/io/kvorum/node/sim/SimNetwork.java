package io.kvorum.node.sim;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Version;
import io.kvorum.node.transport.PeerHandlers;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The simulated network between the nodes: every message is an event of the {@link SimScheduler},
 * delivered after a seeded latency, or lost, duplicated, or held back past later ones, as the
 * network's {@link Faults} say; a link can be cut in one direction or both (partitions: symmetric,
 * one-way, a bridge, flapping). A node that is down refuses connections: a call to it fails at
 * once. Every message carries its sender's clock and moves the receiver's clock past it, as on the
 * wire.
 */
final class SimNetwork {
  /**
   * What the network does to messages, chances per message.
   *
   * @param minLatencyNanos the least a message takes
   * @param maxLatencyNanos the most a message takes, but for spikes
   * @param spike the chance of a message taking up to {@code spikeNanos} more
   * @param loss the chance of a message being lost
   * @param duplication the chance of a request being delivered twice
   */
  record Faults(
      long minLatencyNanos,
      long maxLatencyNanos,
      double spike,
      long spikeNanos,
      double loss,
      double duplication) {
    static final Faults NONE = new Faults(50_000, 500_000, 0, 0, 0, 0);
  }

  /** A node's served side as the network reaches it: its handlers, clock and incarnation. */
  record Endpoint(PeerHandlers handlers, Clock clock, SimScheduler.Owner incarnation) {}

  private final SimScheduler scheduler;
  private final Map<NodeId, Endpoint> endpoints = new LinkedHashMap<>();
  private final Map<String, NodeId> hosts = new LinkedHashMap<>();
  private final Map<NodeId, SimTransport> transports = new LinkedHashMap<>();
  private final Set<String> cut = new HashSet<>();
  private Faults faults = Faults.NONE;

  SimNetwork(SimScheduler scheduler) {
    this.scheduler = scheduler;
  }

  SimScheduler scheduler() {
    return scheduler;
  }

  void faults(Faults faults) {
    this.faults = faults;
  }

  Faults faults() {
    return faults;
  }

  /** Registers {@code transport} as node {@code id}'s client side (replacing an earlier one). */
  void attach(NodeId id, SimTransport transport) {
    transports.put(id, transport);
  }

  /** Node {@code id} listening at {@code host}: its served side. */
  void up(NodeId id, String host, Endpoint endpoint) {
    endpoints.put(id, endpoint);
    hosts.put(host, id);
    announce(id);
  }

  /**
   * Node {@code id} went down: calls to it are refused from now on; those waiting on it fail now if
   * its connections were {@code reset} (its process died, its machine did not), else at their
   * deadlines (a power cut, which sends nothing).
   */
  void down(NodeId id, boolean reset) {
    if (endpoints.remove(id) != null && reset) {
      transports.values().forEach(t -> t.peerDown(id));
    }
  }

  Optional<Endpoint> endpoint(NodeId id) {
    return Optional.ofNullable(endpoints.get(id));
  }

  Optional<NodeId> hostOf(String host) {
    return Optional.ofNullable(hosts.get(host));
  }

  /** Cuts the link from {@code from} to {@code to} (one way). */
  void cut(NodeId from, NodeId to) {
    cut.add(from.value() + ">" + to.value());
  }

  /** Heals every cut link; each node learns that the others are reachable again. */
  void heal() {
    cut.clear();
    endpoints.keySet().forEach(this::announce);
  }

  /** Heals the link from {@code from} to {@code to}. */
  void heal(NodeId from, NodeId to) {
    if (cut.remove(from.value() + ">" + to.value())) {
      Optional.ofNullable(transports.get(from)).ifPresent(t -> t.reachable(to));
    }
  }

  boolean isCut(NodeId from, NodeId to) {
    return cut.contains(from.value() + ">" + to.value());
  }

  /**
   * Sends a message from {@code from} to {@code to}: {@code delivery} runs, as an event of the
   * receiver's incarnation {@code receiver}, after the link's latency, unless the link is cut or
   * the message is lost; a request may come twice.
   *
   * @param request whether the message is a request (which may be duplicated)
   */
  void send(
      NodeId from,
      NodeId to,
      SimScheduler.Owner receiver,
      boolean request,
      long senderClock,
      Clock receiverClock,
      Runnable delivery) {
    if (isCut(from, to) || chance(faults.loss())) {
      return;
    }
    int copies = request && chance(faults.duplication()) ? 2 : 1;
    for (int i = 0; i < copies; i++) {
      scheduler.after(
          latency(),
          receiver,
          () -> {
            if (senderClock > 0) {
              receiverClock.observe(new Version(senderClock));
            }
            delivery.run();
          });
    }
  }

  private long latency() {
    long base =
        faults.minLatencyNanos()
            + scheduler
                .random()
                .nextLong(Math.max(1, faults.maxLatencyNanos() - faults.minLatencyNanos()));
    return chance(faults.spike()) ? base + scheduler.random().nextLong(faults.spikeNanos()) : base;
  }

  private boolean chance(double p) {
    return p > 0 && scheduler.random().nextDouble() < p;
  }

  /** Tells every node's transport that {@code node} can be reached (it started, links healed). */
  private void announce(NodeId node) {
    transports.forEach(
        (id, transport) -> {
          if (!id.equals(node) && !isCut(id, node)) {
            transport.reachable(node);
          }
        });
  }
}
