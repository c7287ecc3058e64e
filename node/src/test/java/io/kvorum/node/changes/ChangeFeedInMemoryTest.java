package io.kvorum.node.changes;

import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.TestCluster;

/**
 * {@link ChangeFeedScenarios} on the in-memory network; gRPC carries the reads in the process
 * tests.
 */
class ChangeFeedInMemoryTest extends ChangeFeedScenarios {
  @Override
  TestCluster.Factory clusters() {
    return LocalCluster::start;
  }
}
