package io.kvorum.node.server;

import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.gateway.HttpGateway;
import java.net.InetSocketAddress;

/**
 * What a node serves ({@link EdgeBootstrap}).
 *
 * @param coordinator the data operations of client requests
 * @param admin what operators ask of the cluster
 * @param feeds the change feeds this node serves
 * @param gateway the HTTP edge, serving clients on {@code httpAddress}; null for a node whose
 *     clients are in its process
 * @param httpAddress the address the HTTP API listens on (its real port when 0 was asked); null
 *     without a gateway
 */
public record NodeEdge(
    Coordinator coordinator,
    ClusterAdmin admin,
    ChangeFeeds feeds,
    HttpGateway gateway,
    InetSocketAddress httpAddress) {}
