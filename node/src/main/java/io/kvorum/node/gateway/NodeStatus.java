package io.kvorum.node.gateway;

import java.util.function.BooleanSupplier;

/**
 * What the status and health endpoints report about this node.
 *
 * @param nodeId this node's id
 * @param ready whether the node serves client requests (started and caught up, not draining)
 */
public record NodeStatus(String nodeId, BooleanSupplier ready) {}
