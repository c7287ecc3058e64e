package io.kvorum.node.server;

import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.StorageEngine;

/**
 * Everything a node keeps on its own disk: its replicas' records, the hints it holds for other
 * nodes, and its Paxos acceptors' states. Closing closes all three (they share the engine).
 */
public record LocalStorage(StorageEngine records, HintStore hints, AcceptorStore acceptors)
    implements AutoCloseable {
  @Override
  public void close() {
    records.close();
  }
}
