package io.kvorum.it;

import io.kvorum.api.KvorumClient;

/** Clients of the nodes of a cluster under test, by index: what {@link QuorumLoad} drives. */
interface ClusterClients {
  int size();

  /** A new client of node {@code i}'s HTTP API on the host; the caller closes it. */
  KvorumClient client(int i);
}
