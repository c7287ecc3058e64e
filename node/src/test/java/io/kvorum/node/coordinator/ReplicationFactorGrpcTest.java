package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ReplicationFactorScenarios} on real gRPC between the nodes. */
class ReplicationFactorGrpcTest extends ReplicationFactorScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
