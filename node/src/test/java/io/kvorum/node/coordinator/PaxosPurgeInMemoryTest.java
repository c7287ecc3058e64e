package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link PaxosPurgeScenarios} on the in-memory network. */
class PaxosPurgeInMemoryTest extends PaxosPurgeScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
