package io.kvorum.node.antientropy;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link AntiEntropyClusterScenarios} on the in-memory network. */
class AntiEntropyClusterInMemoryTest extends AntiEntropyClusterScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
