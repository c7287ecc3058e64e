/**
 * The cluster's shape, as values: its members with their addresses, zones and states, the cluster
 * state (epoch, members, the change in progress) that the {@code membership} protocol agrees on and
 * changes, and which nodes hold which keys (placement, and a key's owners during a change).
 */
package io.kvorum.node.topology;
