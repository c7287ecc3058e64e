package io.kvorum.node.coordinator;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ConditionalWriteScenarios} on the in-memory network. */
class ConditionalWriteInMemoryTest extends ConditionalWriteScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
