package io.kvorum.node;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link MonitoringQueriesScenarios} on the in-memory network. */
class MonitoringQueriesInMemoryTest extends MonitoringQueriesScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
