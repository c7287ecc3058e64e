package io.kvorum.node.cli.admin;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link AdminCommandsClusterScenarios} on the in-memory network. */
class AdminCommandsInMemoryTest extends AdminCommandsClusterScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
