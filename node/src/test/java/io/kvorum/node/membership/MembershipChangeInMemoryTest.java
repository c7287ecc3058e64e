package io.kvorum.node.membership;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link MembershipChangeScenarios} on the in-memory network. */
class MembershipChangeInMemoryTest extends MembershipChangeScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
