package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterHintHandoverScenarios} on the in-memory network. */
class ClusterHintHandoverInMemoryTest extends ClusterHintHandoverScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
