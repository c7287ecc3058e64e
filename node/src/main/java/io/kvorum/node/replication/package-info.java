/**
 * Keeping replicas in step: reaching any node's replicas, hinted handoff, read repair, catch-up
 * before ready, and what this node serves its peers.
 */
package io.kvorum.node.replication;
