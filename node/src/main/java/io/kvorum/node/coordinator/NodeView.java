package io.kvorum.node.coordinator;

/**
 * One node as this node sees it, for {@code GET /v0/cluster}.
 *
 * @param id the node's id
 * @param address its inter-node address, host:port
 * @param self whether it is this node
 * @param up whether it is reachable from here
 * @param detail the connection or circuit-breaker state behind {@code up}
 * @param hintsPending hints this node holds for it
 */
public record NodeView(
    String id, String address, boolean self, boolean up, String detail, long hintsPending) {}
