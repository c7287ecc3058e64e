package io.kvorum.node.membership;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ZoneScenarios} on the in-memory network. */
class ZoneInMemoryTest extends ZoneScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
