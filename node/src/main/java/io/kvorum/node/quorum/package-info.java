/**
 * Asking a set of replicas in parallel and deciding when enough answered: the fan-out and its
 * failure report ({@link io.kvorum.node.quorum.QuorumCall}), and the request deadline that bounds
 * it. Shared by the plain reads and writes and the Paxos rounds of conditional writes.
 */
package io.kvorum.node.quorum;
