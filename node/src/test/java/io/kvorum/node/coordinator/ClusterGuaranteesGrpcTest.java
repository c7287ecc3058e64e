package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterGuaranteesScenarios} on real gRPC between the nodes. */
class ClusterGuaranteesGrpcTest extends ClusterGuaranteesScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
