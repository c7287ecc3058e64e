package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterClockOffsetScenarios} on real gRPC between the nodes. */
class ClusterClockOffsetGrpcTest extends ClusterClockOffsetScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
