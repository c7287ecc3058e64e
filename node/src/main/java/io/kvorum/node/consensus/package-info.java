/**
 * Conditional writes (SPEC §10), all of them: the proposer that decides one with single-decree
 * Paxos over the key's replicas ({@link io.kvorum.node.consensus.ConditionalWriteCoordinator}), the
 * acceptor each replica runs and the store of its durable states, the sweeper that purges settled
 * states, the metrics, and the protocol between proposers and acceptors. The pure state machines
 * are in {@code consensus.round}; the RocksDB store of the states in {@code consensus.rocksdb}.
 */
package io.kvorum.node.consensus;
