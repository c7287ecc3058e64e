package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ConditionalWriteMembershipScenarios} on the in-memory network. */
class ConditionalWriteMembershipInMemoryTest extends ConditionalWriteMembershipScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
