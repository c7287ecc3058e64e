package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterRangeAndViewScenarios} on the in-memory network. */
class ClusterRangeAndViewInMemoryTest extends ClusterRangeAndViewScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
