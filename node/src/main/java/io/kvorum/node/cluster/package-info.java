/**
 * The cluster as values: its members and their states, the cluster state that membership changes,
 * and which nodes hold which keys (placement, and the owners of a key during a change).
 */
package io.kvorum.node.cluster;
