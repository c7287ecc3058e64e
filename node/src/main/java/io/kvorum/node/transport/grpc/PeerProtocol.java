package io.kvorum.node.transport.grpc;

import io.kvorum.node.core.NodeId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inter-node protocol a node speaks, carried by both sides of a hello, and the peers it refuses
 * for speaking one outside the range it talks to (docs/compatibility.md). Protocol 1 is kvorum
 * 0.1.0's, which sends no protocol: an absent field means 1, and a node of protocol 1 leaves it
 * absent. A refusal is logged once per peer and protocol (a refused peer says hello again at each
 * of its starts) and counted in {@code kvorum_peer_protocol_refusals_total{peer}}.
 */
public final class PeerProtocol {
  private static final Logger log = LoggerFactory.getLogger(PeerProtocol.class);

  /**
   * This release's protocol. 2 (0.2.0) adds fields protocol-1 nodes ignore (a join's zone, the
   * hello's protocol), so it talks to 1.
   */
  static final int CURRENT = 2;

  /** The oldest protocol this release talks to: kvorum 0.1.0's. */
  static final int OLDEST = 1;

  private final int speaks;
  private final int oldest;
  private final int newest;
  private final MeterRegistry registry;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  /**
   * A node that speaks {@code speaks} and talks to peers of {@code oldest} up to {@code newest}
   * (tests play other releases with it: 0.1.0 checks nothing, so it talks to any protocol).
   */
  PeerProtocol(int speaks, int oldest, int newest, MeterRegistry registry) {
    if (oldest < 1 || oldest > speaks || newest < speaks) {
      throw new IllegalArgumentException(
          "speaks " + speaks + ", talks to " + oldest + ".." + newest);
    }
    this.speaks = speaks;
    this.oldest = oldest;
    this.newest = newest;
    this.registry = registry;
  }

  /** This release's protocol, its refusals counted in {@code registry}. */
  public static PeerProtocol current(MeterRegistry registry) {
    return new PeerProtocol(CURRENT, OLDEST, CURRENT, registry);
  }

  /** The value of a hello's {@code protocol} field: absent for protocol 1. */
  int wire() {
    return speaks == 1 ? 0 : speaks;
  }

  /**
   * Empty if this node talks to {@code peer}, whose hello carried {@code field}; else why not, in
   * words for both ends' logs (this refusal is logged and counted here).
   */
  Optional<String> refusal(NodeId peer, int field) {
    int theirs = field == 0 ? 1 : field;
    if (theirs >= oldest && theirs <= newest) {
      return Optional.empty();
    }
    String reason =
        peer
            + " speaks inter-node protocol "
            + theirs
            + (theirs > speaks ? " (a newer release)" : " (an older release)")
            + ", this node "
            + speaks
            + " and talks to "
            + oldest
            + ".."
            + newest
            + " only: upgrade the older of the two (docs/compatibility.md)";
    if (logged.add(peer.value() + "/" + theirs)) {
      log.warn("refusing {}: {} (logged once per peer)", peer, reason);
    }
    Counter.builder("kvorum.peer.protocol.refusals")
        .description("hellos refused because the peer speaks a protocol this node cannot talk to")
        .tag("peer", peer.value())
        .register(registry)
        .increment();
    return Optional.of(reason);
  }
}
