package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ReplicationFactorScenarios} on the in-memory network. */
class ReplicationFactorInMemoryTest extends ReplicationFactorScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
