package io.kvorum.node.server;

import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ResilientPeerTransport;
import java.util.List;
import java.util.Optional;

/**
 * Connects a node to its cluster: the membership it starts with, the transport to its peers, and
 * the offsets to their clocks, which follow the membership.
 */
public final class ClusterBootstrap {
  private ClusterBootstrap() {}

  /** Connects to the peers through {@code interconnect}; closed with {@code resources}. */
  public static NodeCluster connect(
      NodeConfig config,
      NodeStorage storage,
      NodeSecurity security,
      Interconnect interconnect,
      NodeResources resources) {
    PeerTransport transport =
        resources.closeOnStop(
            new ResilientPeerTransport(
                interconnect.connect(
                    config,
                    storage.clock(),
                    resources.grpcLoops(),
                    resources.threading(),
                    security.tls(),
                    resources.registry()),
                ResilientPeerTransport.MAX_CALLS_IN_FLIGHT_PER_PEER,
                config
                    .replication()
                    .breakerOpenFor()
                    .orElse(ResilientPeerTransport.BREAKER_OPEN_FOR),
                resources.registry(),
                resources.nanoTime(),
                resources.platformThreads()));
    return over(config, storage, transport, resources);
  }

  /**
   * The cluster as seen through {@code transport}, a transport the caller built (tests of one layer
   * give their own): the membership this node starts with, and the offsets to its peers' clocks,
   * which follow the membership.
   */
  public static NodeCluster over(
      NodeConfig config, NodeStorage storage, PeerTransport transport, NodeResources resources) {
    NodeId self = config.nodeId();
    Membership membership =
        new Membership(self, storage.clusterState(), Optional.of(storage.membershipFiles()));
    membership.bindTo(resources.registry());
    ClockProtocol.Pings pings = new ClockProtocol.Pings(transport);
    ClockOffsets offsets =
        new ClockOffsets(
            peers(self, membership.state()),
            pings,
            storage.clock(),
            resources.nanoTime(),
            config.maxClockOffset(),
            resources.registry());
    membership.onChange(changed -> offsets.members(peers(self, changed)));
    return new NodeCluster(membership, transport, offsets, pings);
  }

  /** Every member of {@code state} but {@code self}. */
  static List<NodeId> peers(NodeId self, ClusterState state) {
    return state.ids().stream().filter(id -> !id.equals(self)).toList();
  }
}
