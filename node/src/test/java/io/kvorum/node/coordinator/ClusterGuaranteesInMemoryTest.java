package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterGuaranteesScenarios} on the in-memory network. */
class ClusterGuaranteesInMemoryTest extends ClusterGuaranteesScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
