package io.kvorum.node.antientropy;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link AntiEntropyClusterScenarios} on real gRPC between the nodes. */
class AntiEntropyClusterGrpcTest extends AntiEntropyClusterScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
