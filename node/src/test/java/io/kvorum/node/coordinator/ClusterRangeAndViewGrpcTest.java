package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterRangeAndViewScenarios} on real gRPC between the nodes. */
class ClusterRangeAndViewGrpcTest extends ClusterRangeAndViewScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
