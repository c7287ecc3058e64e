package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ClusterHintHandoverScenarios} on real gRPC between the nodes. */
class ClusterHintHandoverGrpcTest extends ClusterHintHandoverScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
