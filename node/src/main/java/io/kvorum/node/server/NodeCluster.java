package io.kvorum.node.server;

import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.transport.PeerTransport;

/**
 * How a node sees its cluster and reaches it ({@link ClusterBootstrap}).
 *
 * @param membership the cluster state this node holds, kept in its data directory
 * @param transport the calls to the peers, behind their circuit breakers and bulkheads
 * @param offsets this node's wall-clock offset to each peer, and whether it may version writes
 * @param pings the pings that measure them, and the storage figures the peers answered with
 */
public record NodeCluster(
    Membership membership,
    PeerTransport transport,
    ClockOffsets offsets,
    ClockProtocol.Pings pings) {}
