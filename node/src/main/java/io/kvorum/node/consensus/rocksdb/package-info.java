/** The Paxos acceptors' states in a column family of the node's RocksDB. */
package io.kvorum.node.consensus.rocksdb;
